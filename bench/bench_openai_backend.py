"""Throughput of the openai backend against the fake OpenAI server.

The server runs in its own process (`python -m evaluation_py.testing.fake_openai_server`) with a
simulated latency, so it does not share the client's interpreter. Each run sends N fresh requests
(distinct prompts, 50 tables) through `OpenAIBackend.run` at the given concurrency; the figure is
requests per second of the whole run, median of R runs. With `--store` the runs go through
`run_predictions` into a fresh SQLite store (chunked commits included).

    .venv/bin/python bench/bench_openai_backend.py                 # 2000 requests, c=32, 50 ms, 3 runs
    .venv/bin/python bench/bench_openai_backend.py --store --requests 4000
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluation_py.backends import PredictionRequest, get_backend, make_cache_key  # noqa: E402
from evaluation_py.running.runner import run_predictions  # noqa: E402
from evaluation_py.running.store import PredictionStore  # noqa: E402


def make_requests(n: int, run: int) -> list[PredictionRequest]:
    params = {"temperature": 0, "max_tokens": 256}
    out = []
    for i in range(n):
        table = f"t{i % 50:03d}"
        msgs = ({"role": "system", "content": "Answer with values separated by ||."},
                {"role": "user", "content": f"<table {table}> question {i} of run {run}"})
        out.append(PredictionRequest(make_cache_key("bench", "openai", "fake", params, msgs), f"q{run}-{i}", table,
                                     "bench", "openai", "fake", "html", msgs, params))
    return out


def start_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "evaluation_py.testing.fake_openai_server", "--port", "0",
         "--latency-ms", str(latency_ms)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError(f"fake server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--store", action="store_true", help="go through run_predictions and a SQLite store")
    args = ap.parse_args()
    proc, url = start_server(args.latency_ms)
    rates, attempts, cpu_ms = [], [], []
    try:
        for run in range(args.runs):
            reqs = make_requests(args.requests, run)
            backend = get_backend("openai", {"base_url": url, "model": "fake", "concurrency": args.concurrency})
            got = []
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            t0 = time.perf_counter()
            if args.store:
                with tempfile.TemporaryDirectory() as d, PredictionStore(os.path.join(d, "p.sqlite")) as store:
                    stats = run_predictions(reqs, backend, store, progress=False)
                    n_ok = stats["answered"]
            else:
                backend.run(reqs, got.append)
                n_ok = sum(p.response is not None for p in got)
            dt = time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_SELF)
            cpu_ms.append(1000 * (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) / args.requests)
            if n_ok != args.requests:
                raise RuntimeError(f"run {run}: {n_ok} of {args.requests} answered")
            rates.append(args.requests / dt)
            attempts.append(backend.stats["max_in_flight"])
            print(f"run {run}: {args.requests} requests in {dt:.2f}s = {rates[-1]:.1f} req/s, "
                  f"max in flight {backend.stats['max_in_flight']}, client CPU {cpu_ms[-1]:.2f} ms/request", file=sys.stderr)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    ideal = args.concurrency / (args.latency_ms / 1000.0) if args.latency_ms > 0 else float("inf")
    result = {
        "requests": args.requests, "concurrency": args.concurrency, "latency_ms": args.latency_ms,
        "runs": args.runs, "store": args.store, "req_per_s_median": round(statistics.median(rates), 1),
        "req_per_s_runs": [round(r, 1) for r in rates], "ideal_req_per_s": round(ideal, 1),
        "max_in_flight": max(attempts), "client_cpu_ms_per_request": round(statistics.median(cpu_ms), 2),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
