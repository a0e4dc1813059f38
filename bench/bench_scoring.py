"""Benchmark HCT-QA scoring on 80,000 synthetic (response, gt) pairs.

The pairs are drawn deterministically (seeded) from the release's published
gemma-2-9b-it responses (``$HCTQA_REFERENCE_DIR/hctqa-real-sample/``): each pair
resamples one reference row, shifts every integer in both the response and the
gt by the same random offset (so values vary but matches are kept), and
sometimes wraps the response in the noise the cleaning step removes (an
``Answer:`` prefix, backticks, a trailing explanation after a blank line, a
``Note:``). Prints, per scoring mode (``strict``, ``paper``), the median wall
time of 5 runs of ``score_frame`` and the throughput, then the time of both
modes together as ``eval_scores`` scores them (strict readings shared).

    .venv/bin/python bench/bench_scoring.py [--n 80000] [--runs 5]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evaluation_py.scoring import strict_reading as strict_rules  # noqa: E402
from evaluation_py.scoring.scores import score_frame, summarize, to_long  # noqa: E402

RESPONSES = Path("hctqa-real-sample") / "responses--gemma-2-9b-it--realHCTs.sample.jsonl"
_INT_RE = re.compile(r"\d+")


def synthesise(responses_file: Path, n: int, seed: int = 20240601) -> pd.DataFrame:
    rows = [json.loads(line) for line in responses_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    rng = random.Random(seed)
    responses, gts, ids = [], [], []
    for i in range(n):
        row = rng.choice(rows)
        resp, gt = row["response"], row["gt"]
        if rng.random() < 0.8:
            k = rng.randrange(1, 5000)

            def shift(m: re.Match, k: int = k) -> str:
                return str(int(m.group(0)) + k)

            resp, gt = _INT_RE.sub(shift, resp), _INT_RE.sub(shift, gt)
        u = rng.random()
        if u < 0.05:
            resp = f"Answer: {resp}"
        elif u < 0.10:
            resp = f"```{resp}```"
        elif u < 0.15:
            resp = f"{resp}\n\nExplanation: the table shows {rng.randrange(100)} rows."
        elif u < 0.18:
            resp = f"{resp} Note: values from the table."
        responses.append(resp)
        gts.append(gt)
        ids.append(f"{row['qap_id']}--s{i}")
    return pd.DataFrame({"qap_id": ids, "response": responses, "gt": gts})


def _fresh_caches() -> None:
    # strict mode caches value readings per process; each run starts without them
    strict_rules.read_value.cache_clear()
    strict_rules._gt_value.cache_clear()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=80_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    reference = os.environ.get("HCTQA_REFERENCE_DIR", "").strip()
    if not reference or not (Path(reference) / RESPONSES).is_file():
        ap.error(f"set HCTQA_REFERENCE_DIR to the folder holding {RESPONSES} (got {reference!r})")
    df = synthesise(Path(reference) / RESPONSES, args.n)
    for mode in ("strict", "paper"):
        times, cpu = [], []
        for _ in range(args.runs):
            _fresh_caches()
            t0, c0 = time.perf_counter(), time.process_time()
            scored = score_frame(df, scoring_mode=mode)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        med = statistics.median(times)
        overall = summarize(scored).iloc[0]
        print(f"{mode}: pairs: {len(df)}  runs: {args.runs}  times_s: {', '.join(f'{t:.3f}' for t in times)}")
        print(f"{mode}: median_s: {med:.3f}  throughput: {len(df) / med:,.0f} predictions/s  "
              f"median_cpu_s: {statistics.median(cpu):.3f}")
        print(f"{mode}: check: n={int(overall['n'])} left_out={int(overall['left_out'])} "
              f"unanswered={int(overall['unanswered'])} f1={overall['f1']:.4f}")
    times, cpu = [], []
    for _ in range(args.runs):  # what eval_scores does: both modes, strict readings shared, long rows
        _fresh_caches()
        t0, c0 = time.perf_counter(), time.process_time()
        readings: dict = {}
        for mode in ("strict", "paper"):
            to_long(score_frame(df, scoring_mode=mode, readings=readings))
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    print(f"both: times_s: {', '.join(f'{t:.3f}' for t in times)}  median_s: {statistics.median(times):.3f}  "
          f"median_cpu_s: {statistics.median(cpu):.3f}")


if __name__ == "__main__":
    main()
