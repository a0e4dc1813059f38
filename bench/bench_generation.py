"""Table generation at default scale and 10x: wall time (median of runs), peak memory, linearity.

Run: .venv/bin/python bench/bench_generation.py [--runs 3] [--scales 5,50]
The table-generation models are everything `benchmark_tables` depends on (data tests excluded).
"""
from __future__ import annotations

import argparse

from common import ROOT, dump, median, report, scratch_project, timed_dbt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--scales", default="5,50", help="replicas per variant (5 = default scale, 50 = 10x)")
    args = ap.parse_args()
    project = scratch_project()
    rows = []
    for replicas in (int(x) for x in args.scales.split(",")):
        walls, mems = [], []
        for _ in range(args.runs):
            wall, mem = timed_dbt(project, "build", "--select", "+benchmark_tables", "--exclude", "test_type:data",
                                  "--vars", f"{{replicas: {replicas}}}")
            walls.append(wall)
            mems.append(mem)
        import duckdb
        con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
        n_tables = con.execute("select count(*) from benchmark_tables").fetchone()[0]
        con.close()
        rows.append({"replicas": replicas, "tables": n_tables, "runs (s)": ", ".join(f"{w:.1f}" for w in walls),
                     "median wall (s)": median(walls), "ms per table": round(1000 * median(walls) / n_tables, 2),
                     "peak RSS (GiB)": round(max(mems), 2)})
    dump(ROOT / "bench" / "results" / "generation.md", report("Table generation (dbt build +benchmark_tables)", rows))


if __name__ == "__main__":
    main()
