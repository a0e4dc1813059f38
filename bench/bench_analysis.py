"""Benchmark: every analysis function and figure over 10 models x 70,000 predictions.

Synthetic inputs (about 5,000 tables, 70,000 questions, 700,000 score rows) are
generated deterministically from --seed; generation is not timed. Each run computes
all breakdowns, the composition, the table- and question-property regressions
(per model and pooled, clustered SEs), writes all figures and the HTML report.
Reports the median of --runs runs and writes bench/results/analysis.md.

    .venv/bin/python bench/bench_analysis.py            # default sizes, 3 runs
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import matplotlib  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import statsmodels  # noqa: E402

from evaluation_py.analysis.pipeline import run_analysis  # noqa: E402
from evaluation_py.testing.analysis_inputs import make_benchmark_inputs  # noqa: E402

LIMIT_S = 60.0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=10)
    ap.add_argument("--tables", type=int, default=5000)
    ap.add_argument("--per-table", type=int, default=14, help="questions per table (5000 x 14 = 70,000)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--logit", action="store_true", help="also fit the logit for CC")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "analysis.md"))
    ap.add_argument("--keep", default=None, help="folder to keep the last run's report in")
    args = ap.parse_args(argv)

    load_start = _load()
    models = [f"model_{i:02d}" for i in range(args.models)]
    t0 = time.perf_counter()
    tables, questions, scores = make_benchmark_inputs(
        args.tables, args.per_table, models, seed=args.seed,
        planted={"row_group_label": -0.1, "unbalanced_column_nesting": -0.05, "aggregation": -0.2})
    gen_s = time.perf_counter() - t0
    print(f"generated {len(tables)} tables, {len(questions)} questions, {len(scores)} score rows "
          f"in {gen_s:.1f}s", flush=True)

    totals: list[float] = []
    steps: list[dict] = []
    last = None
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            out_dir = Path(args.keep) if (args.keep and i == args.runs - 1) else Path(tmp) / "report"
            timings: dict = {}
            t0 = time.perf_counter()
            last = run_analysis(scores, tables, questions, out_dir,
                                {"build_date": dt.date.today().isoformat(), "seed": args.seed,
                                 "config": vars(args)}, include_logit=args.logit, timings=timings)
            total = time.perf_counter() - t0
            n_plots = len(last["plots"])
        totals.append(total)
        steps.append(timings)
        print(f"run {i + 1}: {total:.2f}s  " + ", ".join(f"{k} {v:.2f}" for k, v in timings.items()), flush=True)

    med = statistics.median(totals)
    step_names = list(steps[0])
    step_med = {k: statistics.median(s.get(k, 0.0) for s in steps) for k in step_names}
    reg = last["frames"]["regression_table"]
    pooled = reg[(reg.model_name == "__pooled__") & (reg.metric == "f1") & reg.dropped_reason.isna()]
    sig = pooled[pooled.significant]
    cmd = "PYTHONHASHSEED=0 " if os.environ.get("PYTHONHASHSEED") == "0" else ""
    cmd += ".venv/bin/python " + " ".join(shlex.quote(a) for a in ["bench/bench_analysis.py", *(argv or sys.argv[1:])])
    lines = [
        "# Benchmark: analysis (breakdowns, regressions, figures, report)",
        "",
        f"- date: {dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- command: `{cmd}`",
        f"- machine: nproc={os.cpu_count()}, {_cpu_model()}, {platform.system()} {platform.release()}; "
        f"load average at start {load_start}, at end {_load()} (the machine is shared; other jobs inflate times)",
        f"- software: Python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}, "
        f"statsmodels {statsmodels.__version__}, matplotlib {matplotlib.__version__}",
        f"- data (synthetic, seed {args.seed}): {args.models} models, {len(tables)} tables, "
        f"{len(questions)} questions, {len(scores)} long score rows (4 metrics, strict mode, HTML); generation {gen_s:.1f}s (not timed)",
        f"- work per run: 8 breakdown frames, composition, table-property and question-property regressions "
        f"(OLS on precision, recall, F1 + CC linear probability{' + CC logit' if args.logit else ''}; one design "
        f"per fit; {args.models} per-model fits + "
        f"pooled fit with model fixed effects; SEs clustered by table), {n_plots} PNG figures, index.html",
        "",
        f"## Result: median {med:.2f} s over {args.runs} runs (limit {LIMIT_S:.0f} s) -> "
        f"{'PASS' if med <= LIMIT_S else 'FAIL'}",
        "",
        "| run | seconds |",
        "|---|---|",
        *[f"| {i + 1} | {t:.2f} |" for i, t in enumerate(totals)],
        "",
        "Median seconds per step:",
        "",
        "| step | seconds |",
        "|---|---|",
        *[f"| {k} | {v:.2f} |" for k, v in step_med.items()],
        "",
        f"Sanity: pooled F1 regression flags {len(sig)} significant table properties "
        f"({', '.join(f'{p} {c:+.3f}' for p, c in zip(sig.property, sig.coef))}); planted: "
        "row_group_label -0.10, unbalanced_column_nesting -0.05.",
        "",
    ]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))
    return 0 if med <= LIMIT_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
