"""Sandbox throughput: trivial programs per second, isolated (bubblewrap workers, one namespaced
process per program), side by side with in-process `exec` of the same programs (TReB's way: shared
interpreter, no isolation) in one run, and the ratio of the two.

    .venv/bin/python bench/bench_sandbox.py [--programs 300] [--runs 5] [--workers 4] [--rlimits]

Worker start-up (bwrap + an interpreter importing pandas) is measured apart: it is paid once per
pool, not per program. Prints a Markdown block for bench/results/sandbox.md.
"""
from __future__ import annotations

import argparse
import io
import os
import platform
import resource
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from evaluation_py.sandbox import Limits, SandboxPool  # noqa: E402
from evaluation_py.sandbox.program import inputs_from_csv  # noqa: E402

CSV = "Region,2019,2020\nNorth,12,15\nSouth,7,9\nEast,3,4\n"


def programs(n: int) -> list[str]:
    # Trivial programs of the pot kind: read a cell of df, compute, set `answer`.
    return [f"answer = int(df.iloc[{1 + i % 3}, 1]) + {i}" for i in range(n)]


def in_process(codes: list[str], table: dict) -> float:
    """TReB's way: exec in the evaluating process, fresh globals per program; programs per second."""
    start = time.perf_counter()
    for code in codes:
        namespace = {"html": table["html"], "markdown": table["markdown"], "csv": table["csv"],
                     "df": pd.read_csv(io.StringIO(table["csv"]), header=None, dtype=str, keep_default_na=False)}
        exec(code, namespace)
        assert "answer" in namespace
    return len(codes) / (time.perf_counter() - start)


def sandboxed(pool: SandboxPool, codes: list[str], table: dict) -> float:
    start = time.perf_counter()
    results = pool.map(codes, table)
    elapsed = time.perf_counter() - start
    bad = [r for r in results if not r.ok]
    assert not bad, bad[:3]
    return len(codes) / elapsed


def _cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--programs", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", type=int, default=4)  # two per core: one forks while the other waits on a pipe
    parser.add_argument("--rlimits", action="store_true", help="also measure the weaker rlimits sandbox")
    args = parser.parse_args()
    table = inputs_from_csv(CSV)
    codes = programs(args.programs)
    sandboxes = ["bubblewrap"] + (["rlimits"] if args.rlimits else [])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"command: .venv/bin/python bench/bench_sandbox.py --programs {args.programs} --runs {args.runs} "
          f"--workers {args.workers}{' --rlimits' if args.rlimits else ''}")
    for sandbox in sandboxes:
        start = time.perf_counter()
        with SandboxPool(args.workers, Limits(timeout_s=10), sandbox=sandbox) as pool:
            startup = time.perf_counter() - start
            sandboxed(pool, codes[:20], table)  # warm-up
            rates, direct, ratios, cpu = [], [], [], []
            for _ in range(args.runs):
                before = _cpu_s() + pool.worker_cpu_s()
                rate = sandboxed(pool, codes, table)
                # CPU of everything (host, workers, the programs' processes, which the workers reap)
                # per isolated program: what the cores bound the rate to when nothing else runs.
                cpu.append((_cpu_s() + pool.worker_cpu_s() - before) / len(codes))
                base = in_process(codes, table)
                rates.append(rate), direct.append(base), ratios.append(base / rate)
        print(f"\n{sandbox}, {args.workers} workers, pool start-up {startup:.2f} s")
        print(f"- isolated: {', '.join(f'{r:.1f}' for r in rates)} programs/s; median {statistics.median(rates):.1f}")
        print(f"- in-process exec: {', '.join(f'{r:.0f}' for r in direct)} programs/s; median {statistics.median(direct):.0f}")
        print(f"- in-process / isolated, per run: {', '.join(f'{r:.1f}' for r in ratios)}; median {statistics.median(ratios):.1f}x")
        per_program = statistics.median(cpu)
        print(f"- CPU per isolated program (all processes): {', '.join(f'{c * 1000:.1f}' for c in cpu)} ms; "
              f"median {per_program * 1000:.1f} ms, "
              f"bounding the rate on {os.cpu_count()} idle cores to {os.cpu_count() / per_program:.0f} programs/s")


if __name__ == "__main__":
    main()
