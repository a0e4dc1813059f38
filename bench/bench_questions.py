"""Benchmark question generation and the SQLite cross-check.

    .venv/bin/python bench/bench_questions.py [--tables 4700] [--workers 2] [--repeats 3]

Tables are sampled from the vocabulary seeds by generator_py.questions.toy_tables (untimed); generation
(`generate_questions` on every table, spread over `--workers` forked processes) and the cross-check
(`cross_check.sqlite_answers` + `compare_answers` on every question) are timed; medians over
`--repeats` runs go to bench/results/questions.md.
"""
from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing as mp
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

from generator_py.cross_check import compare_answers, sqlite_answers  # noqa: E402
from generator_py.questions import generate_questions, load_domain_nl, question_diversity  # noqa: E402
from generator_py.questions.toy_tables import load_seed_frames, toy_table  # noqa: E402

TABLES: list = []
NLS: dict = {}


def _gen(idx: list[int]):
    out = []
    for i in idx:
        t = TABLES[i]
        out.extend((q.question_id, q.table_id, q.sql, q.question, q.answer_rows, bool(q.spec["order_by"]))
                   for q in generate_questions(t, NLS[t.domain], 1))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=4700)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench/results/questions.md"))
    args = ap.parse_args()
    fr = load_seed_frames()
    doms = list(fr["table_templates"][["domain", "template_name"]].itertuples(index=False))
    for dom, tn in doms:
        NLS[dom] = load_domain_nl(fr["nl_templates"], fr["nl_table_meanings"], fr["domain_attributes"], dom, tn)
    t0 = time.perf_counter()
    for i in range(args.tables):
        TABLES.append(toy_table(fr, doms[i % len(doms)][0], i // len(doms), seed=1))
    build_s = time.perf_counter() - t0
    chunks = [list(range(k, len(TABLES), args.workers * 8)) for k in range(args.workers * 8)]
    ctx = mp.get_context("fork")
    gen_times, check_times, results = [], [], None
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        if args.workers > 1:
            with ctx.Pool(args.workers) as pool:
                parts = pool.map(_gen, chunks)
        else:
            parts = [_gen(c) for c in chunks]
        gen_times.append(time.perf_counter() - t0)
        results = [q for p in parts for q in p]
    frames = {t.table_id: t.frame for t in TABLES}
    n = len(results)
    bad = 0
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        ans = sqlite_answers(frames, [(q[0], q[1], q[2]) for q in results], workers=args.workers)
        bad = sum(1 for q in results if not compare_answers(q[4], ans[q[0]], q[5]))
        check_times.append(time.perf_counter() - t0)
    div = question_diversity(pd.DataFrame([(q[1], q[3]) for q in results], columns=["table_id", "question"]))
    g, c = statistics.median(gen_times), statistics.median(check_times)
    try:
        from importlib.metadata import version

        compiled = f"sqlglotc {version('sqlglotc')}"
    except Exception:
        compiled = "not installed"
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count())
    lines = [
        "# Question generation benchmark", "",
        f"- date: {dt.datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {platform.machine()}, nproc={nproc}, Python {platform.python_version()}, "
        f"sqlglot compiled extension (sqlglotc): {compiled}",
        f"- command: `.venv/bin/python bench/bench_questions.py --tables {args.tables} --workers {args.workers} "
        f"--repeats {args.repeats}`",
        f"- tables: {len(TABLES)} (sampled from the seeds in {build_s:.1f} s, untimed), questions: {n} "
        f"({n / len(TABLES):.2f} per table)", "",
        "| step | median wall time (s) | per question (ms) | questions / s |", "|---|---|---|---|",
        f"| generate_questions ({args.workers} workers) | {g:.2f} | {1000 * g / n:.3f} | {n / g:.0f} |",
        f"| SQLite cross-check ({args.workers} workers) | {c:.2f} | {1000 * c / n:.3f} | {n / c:.0f} |", "",
        f"- all runs, generation: {', '.join(f'{x:.2f}' for x in gen_times)} s; cross-check: "
        f"{', '.join(f'{x:.2f}' for x in check_times)} s",
        f"- cross-check disagreements: {bad}",
        f"- question diversity (paper Table I, mean pairwise word Jaccard per table): {div:.3f}", "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
