"""The scoring CLI against the release's procedure (`release_style_scorer.py`), side by side in one run.

Writes 78,680 responses (the size of the release's synthetic response files; drawn as `bench_scoring.py`
draws them, from the reference gemma-2-9b-it responses) to one JSON list of `id`, `response`, `gt` (the
release's script reads such a file with `json.load`; the CLI reads the same file), then times, as
processes, `--runs` interleaved rounds of: the CLI in paper mode with its default metrics (the release's
four), the same per dataset (`--by dataset`, what the release's script also prints), with `--metrics`
naming all seven, strict mode, the release's procedure, and the CLI's start (`--help`). Prints the medians
(wall and CPU seconds of each process), the load, the ratio CLI / release's procedure, and whether both
give the same means.

    HCTQA_REFERENCE_DIR=... .venv/bin/python bench/bench_scoring_cli.py [--n 78680] [--runs 3]
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_scoring import RESPONSES, synthesise  # noqa: E402


def timed(argv: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one process (its children's rusage), and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def release_means(text: str) -> dict:
    """The release-style report's means on the whole file (its `dataset ALL` block)."""
    block = text.split("on dataset ALL", 1)[1]
    names = {"Precision": "precision", "Recall": "recall", "F1 Score": "f1", "CC Score": "cc"}
    return {names[m.group(1)]: float(m.group(2)) for m in re.finditer(r"Mean ([A-Za-z0-9 ]+): ([0-9.]+)", block)
            if m.group(1) in names and m.start() < block.find("*")}


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
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "responses.json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump([{"id": qid, "response": resp, "gt": gt}
                   for qid, resp, gt in zip(frame["qap_id"], frame["response"], frame["gt"])], f)
    py = sys.executable
    cli = [py, "-m", "evaluation_py.scoring", str(path)]
    commands = {
        "cli paper (default metrics)": [*cli, "--scoring-mode", "paper"],
        "cli paper --by dataset": [*cli, "--scoring-mode", "paper", "--by", "dataset"],
        "cli paper, all seven metrics": [*cli, "--scoring-mode", "paper",
                                         "--metrics", "precision,recall,f1,cc,exact_match,rouge_l,bleu"],
        "cli strict (default metrics)": cli,
        "release's procedure": [py, "bench/release_style_scorer.py", str(path), str(folder / "release.txt")],
        "cli start (--help)": [py, "-m", "evaluation_py.scoring", "--help"],
    }
    walls: dict[str, list[float]] = {k: [] for k in commands}
    cpus: dict[str, list[float]] = {k: [] for k in commands}
    outputs = {}
    loads = [os.getloadavg()]
    for _ in range(args.runs):  # interleaved: the machine's load falls on every command alike
        for name, argv in commands.items():
            wall, cpu, outputs[name] = timed(argv)
            walls[name].append(wall)
            cpus[name].append(cpu)
        loads.append(os.getloadavg())
    print(f"responses: {args.n}  runs: {args.runs}  load averages (1, 5, 15 min) before and after each round: "
          + "; ".join(f"{a:.1f} {b:.1f} {c:.1f}" for a, b, c in loads))
    for name in commands:
        print(f"{name}: median wall {statistics.median(walls[name]):.3f} s (runs "
              f"{', '.join(f'{t:.3f}' for t in walls[name])}), median CPU {statistics.median(cpus[name]):.3f} s")
    ours_name, ref = "cli paper (default metrics)", "release's procedure"
    print(f"ratio cli paper / release's procedure: wall {statistics.median(walls[ours_name]) / statistics.median(walls[ref]):.3f}"
          f", CPU {statistics.median(cpus[ours_name]) / statistics.median(cpus[ref]):.3f}")
    ours, theirs = json.loads(outputs[ours_name]), release_means(outputs[ref])
    print("same means:", all(abs((ours[m] or 0) - theirs[m]) < 1e-4 for m in ("precision", "recall", "f1", "cc")),
          {m: (ours[m], theirs[m]) for m in ("precision", "recall", "f1", "cc")})


if __name__ == "__main__":
    main()
