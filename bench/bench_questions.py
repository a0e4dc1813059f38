"""Benchmark question generation (the int_question_instances code path) and the SQLite cross-check.

    .venv/bin/python bench/bench_questions.py --duckdb /tmp/qwork/hctqa.duckdb [--workers 2] [--repeats 3]

Reads the REAL generated tables of a dbt build (at least `dbt build --select +int_question_instances`; default
scale: `--vars '{replicas: 5}'`) from its DuckDB file, read-only and exactly as
models/generation/int_question_instances.py does, then times, `--repeats` times each:

* load: the DuckDB relations to pandas frames (int_table_instances, int_relational_rows, aggregate cells);
* relational_tables: frames -> RelationalTable objects;
* generate_all: every question (`--workers` processes), the model's return value;
* the SQLite cross-check (`cross_check.sqlite_answers` + `compare_answers` on every question;
  `--check-repeats`, 0 to skip).

Medians go to bench/results/questions.md (or `--out`). Without `--duckdb` (or with `--toy N`) it falls back
to N tables sampled from the vocabulary seeds by tests/support/toy_tables.py.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from generator_py.answers.sqlite_answers import compare_answers, sqlite_answers  # noqa: E402
from generator_py.questions.instances import generate_all, relational_tables, template_measures  # noqa: E402
from generator_py.questions import question_diversity  # noqa: E402


def _load_duckdb(path: str) -> dict:
    import duckdb

    con = duckdb.connect(path, read_only=True)
    try:
        aggregates = (con.table("intermediate.int_hct_cells").filter("role = 'aggregate'")
                      .project("table_id, row_group, col_group, value").distinct().df())
        return {"instances": con.table("intermediate.int_table_instances").df(), "rows": con.table("intermediate.int_relational_rows").df(),
                "aggregates": aggregates, "nl": con.table("staging.stg_nl_templates").df(),
                "meanings": con.table("staging.stg_nl_table_meanings").df(),
                "attributes": con.table("staging.stg_domain_attributes").df(),
                "measures": template_measures(*(con.table(f"staging.stg_{n}").df() for n in (
                    "domain_attributes", "domain_values", "domain_value_ranges", "table_templates")))}
    finally:
        con.close()


def _toy_tables(n: int) -> tuple[list, tuple]:
    from tests.support.toy_tables import ToyTables, load_seed_frames

    fr = load_seed_frames()
    toy = ToyTables(fr)
    doms = toy.domains()
    tables = [toy.table(doms[i % len(doms)][0], i // len(doms), seed=1) for i in range(n)]
    return tables, (fr["nl_templates"], fr["nl_table_meanings"], fr["domain_attributes"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duckdb", default=os.environ.get("HCTQA_DUCKDB_PATH"),
                    help="DuckDB file of a dbt build (default: $HCTQA_DUCKDB_PATH)")
    ap.add_argument("--toy", type=int, default=0, help="use N toy tables instead of a dbt build")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--check-repeats", type=int, default=1)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--out", default=str(ROOT / "bench/results/questions.md"))
    args = ap.parse_args()
    real = bool(args.duckdb) and not args.toy
    load_times, rel_times, gen_times, check_times = [], [], [], []
    result = tables = None
    measures = None
    for _ in range(args.repeats):
        if real:
            t0 = time.perf_counter()
            d = _load_duckdb(args.duckdb)
            t1 = time.perf_counter()
            tables = relational_tables(d["instances"], d["rows"], d["aggregates"])
            t2 = time.perf_counter()
            nl = (d["nl"], d["meanings"], d["attributes"])
            measures = d["measures"]
            load_times.append(t1 - t0)
            rel_times.append(t2 - t1)
        elif tables is None:
            tables, nl = _toy_tables(args.toy or 4700)
        t2 = time.perf_counter()
        result = generate_all(tables, *nl, args.seed, workers=args.workers, measures=measures)
        gen_times.append(time.perf_counter() - t2)
    q = result.select(["question_id", "table_id", "sql", "question", "py_answer_json"]).to_pylist()
    n = len(q)
    bad = 0
    if args.check_repeats:
        import json

        frames = {t.table_id: t.frame for t in tables}
        expected = {r["question_id"]: json.loads(r["py_answer_json"]) for r in q}
        for _ in range(args.check_repeats):
            t0 = time.perf_counter()
            ans = sqlite_answers(frames, [(r["question_id"], r["table_id"], r["sql"]) for r in q], workers=args.workers)
            bad = sum(1 for r in q if not compare_answers(expected[r["question_id"]], ans[r["question_id"]],
                                                          " ORDER BY " in r["sql"]))
            check_times.append(time.perf_counter() - t0)
    div = question_diversity(pd.DataFrame([(r["table_id"], r["question"]) for r in q], columns=["table_id", "question"]))
    g = statistics.median(gen_times)
    try:
        from importlib.metadata import version

        compiled = f"sqlglotc {version('sqlglotc')}"
    except Exception:
        compiled = "not installed"
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count())
    try:
        load1 = open("/proc/loadavg").read().split()[0]
    except OSError:
        load1 = "?"
    src = (f"real tables of a dbt build (`{args.duckdb}`)" if real else f"{len(tables)} toy tables from the seeds")
    cmd = ("`.venv/bin/python bench/bench_questions.py "
           + (f"--duckdb {args.duckdb} " if real else f"--toy {args.toy or 4700} ")
           + f"--workers {args.workers} --repeats {args.repeats} --check-repeats {args.check_repeats}`")
    fmt = lambda xs: ", ".join(f"{x:.2f}" for x in xs)  # noqa: E731
    lines = [
        "# Question generation benchmark", "",
        f"- date: {dt.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.machine()}, nproc={nproc}, load average (1 min) at the end: {load1}, "
        f"Python {platform.python_version()}, sqlglot compiled extension: {compiled}",
        f"- command: {cmd}",
        f"- tables: {len(tables)}, {src}; questions: {n} ({n / len(tables):.2f} per table)", "",
        "| step | median wall time (s) | per question (ms) | questions / s |", "|---|---|---|---|",
    ]
    if real:
        m = statistics.median(load_times) + statistics.median(rel_times) + g
        lines += [
            f"| load frames from DuckDB | {statistics.median(load_times):.2f} | | |",
            f"| relational_tables | {statistics.median(rel_times):.2f} | | |",
        ]
    lines.append(f"| generate_all ({args.workers} workers) | {g:.2f} | {1000 * g / n:.3f} | {n / g:.0f} |")
    if real:
        lines.append(f"| model code path (the three above) | {m:.2f} | {1000 * m / n:.3f} | {n / m:.0f} |")
    if check_times:
        c = statistics.median(check_times)
        lines.append(f"| SQLite cross-check ({args.workers} workers) | {c:.2f} | {1000 * c / n:.3f} | {n / c:.0f} |")
    lines += [
        "",
        f"- all runs, generate_all: {fmt(gen_times)} s"
        + (f"; load: {fmt(load_times)} s; relational_tables: {fmt(rel_times)} s" if real else "")
        + (f"; cross-check: {fmt(check_times)} s" if check_times else ""),
        f"- cross-check disagreements: {bad}" if check_times else "- cross-check: skipped",
        f"- question diversity (paper Table I, mean pairwise word Jaccard per table): {div:.3f}", "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
