"""The whole `dbt build` (tables, questions, answers, data tests, baselines, analyses): wall time per scale,
the time of each layer, and the SQLite cross-check of every question.

Run: .venv/bin/python bench/bench_build.py [--runs 3] [--scales 5,50]
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict

from common import ROOT, dump, median, report, scratch_project, timed_dbt

LAYERS = ("staging", "generation", "benchmark", "evaluation", "analysis")


def model_layer(project) -> dict[str, str]:
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    return {uid: n["original_file_path"].split("/")[1] for uid, n in manifest["nodes"].items() if uid.startswith("model.")}


def cross_check(project) -> str:
    """Every default-scale question through SQLite (the build above is at default scale)."""
    wall, _ = timed_dbt(project, "build", "--select", "int_answer_cross_check", "--vars", "{replicas: 5, cross_check: true}")
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    seconds = next(r["execution_time"] for r in results if r["unique_id"].endswith("int_answer_cross_check"))
    import duckdb
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    n, agreed = con.execute("select count(*), count(*) filter (where agrees) from intermediate.int_answer_cross_check").fetchone()
    con.close()
    return (f"\nSQLite cross-check of every default-scale question (`--vars '{{cross_check: true}}'`): "
            f"{n} questions, {agreed} agree, model time {seconds:.1f} s (dbt wall {wall:.1f} s).\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scales", default="5,50")
    args = ap.parse_args()
    project = scratch_project()
    rows, check_line = [], ""
    for replicas in (int(x) for x in args.scales.split(",")):
        runs = 1 if replicas > 5 else args.runs
        walls, mems, layers = [], [], defaultdict(list)
        for _ in range(runs):
            wall, mem = timed_dbt(project, "build", "--vars", f"{{replicas: {replicas}}}")
            walls.append(wall)
            mems.append(mem)
            kinds = model_layer(project)
            per = defaultdict(float)
            for r in json.loads((project / "target" / "run_results.json").read_text())["results"]:
                uid = r["unique_id"]
                per["data tests" if uid.startswith("test.") else kinds.get(uid, "seeds")] += r["execution_time"]
            for k, v in per.items():
                layers[k].append(v)
        row = {"replicas": replicas, "runs (s)": ", ".join(f"{w:.1f}" for w in walls), "median wall (s)": median(walls),
               "peak RSS (GiB)": round(max(mems), 2)}
        for k in ("seeds", "staging", "generation", "benchmark", "data tests", "evaluation", "analysis"):
            row[f"{k} (s, summed)"] = median(layers[k]) if layers[k] else 0
        rows.append(row)
        if replicas == 5:
            check_line = cross_check(project)
    text = report("Whole dbt build", rows) + check_line
    dump(ROOT / "bench" / "results" / "build.md", text)


if __name__ == "__main__":
    main()
