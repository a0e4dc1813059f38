"""What a fully cached evaluation costs on a rebuild: the openai model's predictions are all in the store.

At default scale (no `replicas` var) one `dbt build` evaluates an openai model on a sample of N
questions (default 10,000) against the fake OpenAI server (in this process, latency 0, concurrency 32).
Then the same build runs again R times (default 3): each must send 0 requests, and the figure is the
wall time of the evaluation models in it (sum of `execution_time` in target/run_results.json of the
models under models/evaluation), median of the R reruns. Target: at most 15 s.

    .venv/bin/python bench/bench_cached_rebuild.py                    # N=10000, 3 reruns
    .venv/bin/python bench/bench_cached_rebuild.py --sample 2000 --reruns 1 --vars-extra "replicas: 1"

Writes bench/results/cached_rebuild.md (machine, date, command, figures). Runs in a scratch copy of the
project; singular data tests are excluded by default (`--with-singular-tests` keeps them) so the
figure does not depend on the state of the benchmark's quality checks.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from common import machine, scratch_project  # noqa: E402
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "cached_rebuild.md"
TARGET_S = 15.0


def dbt_build(project: Path, build_vars: str, exclude_singular: bool) -> tuple[float, dict]:
    dbt = str(Path(sys.executable).parent / "dbt")
    env = dict(os.environ, HCTQA_DUCKDB_PATH=str(project / "hctqa.duckdb"), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    cmd = [dbt, "build", "--vars", build_vars, "--project-dir", str(project), "--profiles-dir", str(project)]
    if exclude_singular:
        cmd += ["--exclude", "test_type:singular"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"dbt build failed in {project}:\n{proc.stdout[-5000:]}\n{proc.stderr[-2000:]}")
    results = json.loads((project / "target" / "run_results.json").read_text())
    nodes = {}
    for r in results["results"]:
        uid = r["unique_id"]
        if uid.startswith("model.") and uid.split(".")[-1].startswith("eval_"):
            nodes[uid.split(".")[-1]] = r["execution_time"]
    return wall, nodes


def evaluation_model_names(project: Path) -> set[str]:
    return {p.stem for p in (project / "models" / "evaluation").iterdir() if p.suffix in (".py", ".sql")}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", type=int, default=10000)
    ap.add_argument("--reruns", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--vars-extra", default="", help="more dbt vars, YAML inline (e.g. 'replicas: 1')")
    ap.add_argument("--with-singular-tests", action="store_true")
    ap.add_argument("--no-write", action="store_true", help="print the figures only")
    args = ap.parse_args()

    project = scratch_project()
    print(f"scratch project: {project}", flush=True)
    with FakeOpenAIServer(latency_s=0.0) as srv:
        entry = (f"{{name: fake, backend: openai, base_url: '{srv.base_url}', model: m, "
                 f"sample: {args.sample}, concurrency: {args.concurrency}}}")
        build_vars = "{eval_models: [" + entry + "]" + (f", {args.vars_extra}" if args.vars_extra else "") + "}"
        exclude = not args.with_singular_tests
        wall1, nodes1 = dbt_build(project, build_vars, exclude)
        sent1 = srv.stats()["requests"]
        print(f"first build: {wall1:.1f} s, {sent1} requests, evaluation models {sum(nodes1.values()):.1f} s {nodes1}",
              flush=True)
        names = evaluation_model_names(project)
        reruns = []
        for i in range(args.reruns):
            srv.reset_counters()
            wall, nodes = dbt_build(project, build_vars, exclude)
            sent = srv.stats()["requests"]
            ev = {k: v for k, v in nodes.items() if k in names}
            reruns.append((wall, sum(ev.values()), sent, ev))
            print(f"rerun {i + 1}: build {wall:.1f} s, evaluation models {sum(ev.values()):.1f} s, {sent} requests, {ev}",
                  flush=True)
    import duckdb

    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    n_questions = con.execute("select count(*) from benchmark_questions").fetchone()[0]
    n_pred = con.execute("select count(*) from eval_predictions").fetchone()[0]
    con.close()

    eval_median = statistics.median(r[1] for r in reruns)
    build_median = statistics.median(r[0] for r in reruns)
    zero = all(r[2] == 0 for r in reruns)
    per_model = {k: round(statistics.median(r[3].get(k, 0.0) for r in reruns), 2) for k in sorted(reruns[0][3])}
    ok = zero and eval_median <= TARGET_S
    lines = [
        "# Cached rebuild of the evaluation",
        "",
        f"Machine: {machine()} (`nproc` = {os.cpu_count()}). Date: {time.strftime('%Y-%m-%d')}.",
        f"Command: `{' '.join([Path(sys.executable).name] + sys.argv)}`",
        "",
        f"Default scale{' + ' + args.vars_extra if args.vars_extra else ''}: {n_questions} questions in "
        f"benchmark_questions; one openai model (fake server in the bench process, latency 0, concurrency "
        f"{args.concurrency}) on a sample of {args.sample} questions ({n_pred} predictions).",
        "`dbt build` once (fills the store), then the identical build again; figure: sum of `execution_time` of the "
        "models under models/evaluation in target/run_results.json of the rerun.",
        "",
        "| | value |",
        "|---|---:|",
        f"| first build: wall | {wall1:.1f} s |",
        f"| first build: requests sent | {sent1} |",
        f"| first build: evaluation models | {sum(nodes1.values()):.1f} s |",
        f"| reruns: whole build wall (median of {len(reruns)}) | {build_median:.1f} s |",
        f"| reruns: evaluation models (median of {len(reruns)}) | **{eval_median:.1f} s** |",
        f"| reruns: each (evaluation models) | {', '.join(f'{r[1]:.1f}' for r in reruns)} s |",
        f"| reruns: requests sent | {', '.join(str(r[2]) for r in reruns)} |",
        "",
        "Per evaluation model in the reruns (median, s): "
        + ", ".join(f"`{k}` {v}" for k, v in per_model.items()) + ".",
        "",
        f"Target (cached rerun adds at most {TARGET_S:.0f} s, 0 requests): {'met' if ok else 'NOT met'}.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
