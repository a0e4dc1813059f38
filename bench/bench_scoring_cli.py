"""The scoring CLI against the release's procedure (`release_style_scorer.py`), side by side in one run.

Writes 78,680 responses (the size of the release's synthetic response files; drawn as `bench_scoring.py`
draws them, from the reference gemma-2-9b-it responses) to a JSONL, then times, as processes, `--runs`
rounds of: the CLI in paper mode with its default metrics (the release's four), the same with
`--metrics` naming all seven, and the release-style script; and the CLI's start (`--help`). Prints the
medians and the ratio CLI / release-style.

    HCTQA_REFERENCE_DIR=... .venv/bin/python bench/bench_scoring_cli.py [--n 78680] [--runs 3]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_scoring import RESPONSES, synthesise  # noqa: E402


def timed(argv: list[str]) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return time.perf_counter() - t, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=78_680)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    reference = os.environ.get("HCTQA_REFERENCE_DIR", "").strip()
    if not reference or not (Path(reference) / RESPONSES).is_file():
        ap.error(f"set HCTQA_REFERENCE_DIR to the folder holding {RESPONSES} (got {reference!r})")
    frame = synthesise(Path(reference) / RESPONSES, args.n)
    folder = Path(tempfile.mkdtemp(prefix="hctqa-score-"))
    path = folder / "responses.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for qid, resp, gt in zip(frame["qap_id"], frame["response"], frame["gt"]):
            f.write(json.dumps({"qap_id": qid, "response": resp, "gt": gt}) + "\n")
    py = sys.executable
    commands = {
        "cli paper (default metrics)": [py, "-m", "evaluation_py.scoring", str(path), "--scoring-mode", "paper"],
        "cli paper, all seven metrics": [py, "-m", "evaluation_py.scoring", str(path), "--scoring-mode", "paper",
                                         "--metrics", "precision,recall,f1,cc,exact_match,rouge_l,bleu"],
        "cli strict (default metrics)": [py, "-m", "evaluation_py.scoring", str(path)],
        "release-style script": [py, "bench/release_style_scorer.py", str(path)],
        "cli start (--help)": [py, "-m", "evaluation_py.scoring", "--help"],
    }
    times: dict[str, list[float]] = {k: [] for k in commands}
    outputs = {}
    for _ in range(args.runs):  # interleaved: the machine's load falls on every command alike
        for name, argv in commands.items():
            seconds, outputs[name] = timed(argv)
            times[name].append(seconds)
    print(f"responses: {args.n}  runs: {args.runs}  load average before: {os.getloadavg()}")
    for name, ts in times.items():
        print(f"{name}: median {statistics.median(ts):.3f} s  (runs {', '.join(f'{t:.3f}' for t in ts)})")
    release = statistics.median(times["release-style script"])
    print(f"ratio cli paper / release-style: {statistics.median(times['cli paper (default metrics)']) / release:.3f}")
    ours, theirs = json.loads(outputs["cli paper (default metrics)"]), json.loads(outputs["release-style script"])
    print("same means:", all(abs((ours[m] or 0) - theirs[m]) < 1e-4 for m in ("precision", "recall", "f1", "cc")),
          {m: (ours[m], theirs[m]) for m in ("precision", "recall", "f1", "cc")})


if __name__ == "__main__":
    main()
