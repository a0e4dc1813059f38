"""The light default `dbt build` and `--selector full` at the default scale: wall time, peak memory of the
whole dbt process tree, what is on disk, and the no-change rebuild; and the per-node memory profile.

Each run starts from an empty database in a scratch copy of the project (database, exports, reports and
cache removed); the rebuild follows the last run, nothing changed. Memory: every second the proportional
set size (PSS) of the dbt process and all its children (forked workers and children included) is summed,
each page shared between them counted once, and the peak is the largest sum; the peak of the plain RSS sum
(every 0.1 s), which counts a forked child's copy-on-write pages again, is printed beside it, and so are the
nodes running at each build's peak (target/run_results.json's timing). `--profile` runs one build with
`--threads 1` and attributes the samples to the node running then, to say which nodes hold the memory.

    .venv/bin/python bench/bench_light_full.py --build light --runs 3          # a row of BENCHMARKS.md
    .venv/bin/python bench/bench_light_full.py --build full --runs 3
    .venv/bin/python bench/bench_light_full.py --build light --runs 1 --replicas 50   # 10x scale
    .venv/bin/python bench/bench_light_full.py --build full --profile          # memory per node
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import dump, machine, scratch_project  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SELECTION = {"light": [], "full": ["--selector", "full"]}
PRODUCED = ("hctqa.duckdb", "hctqa.duckdb.wal", "exports", "reports", "cache", "target", "logs")


def _pss(pid: int) -> int:
    """Process `pid`'s proportional set size (bytes): its resident pages, each page it shares counted as its
    share (smaps_rollup), so pages a forked child shares with its parent count once across the tree."""
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    return 0


def tree_memory(proc: psutil.Process, with_pss: bool) -> tuple[int, int]:
    """(RSS, PSS) summed over the dbt process and all its children, in bytes (PSS 0 unless `with_pss`). The
    RSS sum counts a page a forked child shares with its parent (copy on write) twice; the PSS sum is the
    tree's footprint."""
    rss = pss = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            rss += p.memory_info().rss
            pss += _pss(p.pid) if with_pss else 0
        except (psutil.Error, OSError):
            pass
    return rss, pss


# Reading smaps_rollup walks a process's page tables under its memory lock: every 0.1 s it doubled the
# build's wall time here, so the PSS is read once a second, the cheap RSS every 0.1 s.
PSS_EVERY = 10


def run_build(project: Path, args: list[str]) -> dict:
    """One `dbt build`: wall seconds, peak tree PSS and RSS (bytes), the PSS samples (t, bytes)."""
    dbt = str(Path(sys.executable).parent / "dbt")
    env = dict(os.environ, HCTQA_DUCKDB_PATH=str(project / "hctqa.duckdb"), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    argv = [dbt, "build", *args, "--project-dir", str(project), "--profiles-dir", str(project)]
    samples: list[tuple[float, int]] = []  # (t, PSS), once a second
    rss_peak = [0]
    t0 = time.time()
    proc = subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ps = psutil.Process(proc.pid)
    done = threading.Event()

    def sample():
        n = 0
        while not done.is_set():
            try:
                with_pss = n % PSS_EVERY == 0
                rss, pss = tree_memory(ps, with_pss)
                if with_pss:
                    samples.append((time.time(), pss))
                rss_peak[0] = max(rss_peak[0], rss)
            except psutil.Error:
                pass
            n += 1
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out = proc.communicate()[0]
    done.set()
    sampler.join()
    wall = time.time() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"dbt build {' '.join(args)} failed:\n{out[-4000:]}")
    return {"wall": wall, "peak": max(b for _, b in samples), "rss_peak": rss_peak[0], "samples": samples}


def on_disk(project: Path) -> int:
    total = 0
    for name in ("hctqa.duckdb", "hctqa.duckdb.wal", "exports"):
        path = project / name
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return total


def clean(project: Path) -> None:
    for name in PRODUCED:
        path = project / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()


def node_profile(project: Path, samples) -> list[tuple[str, float, float]]:
    """(node, peak GiB while it ran, seconds) for each model, from the samples and run_results.json."""
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    rows = []
    for r in results:
        timing = {t["name"]: t for t in r.get("timing", [])}
        ex = timing.get("execute")
        if not ex or not r["unique_id"].startswith("model."):
            continue
        start = datetime.fromisoformat(ex["started_at"].replace("Z", "+00:00")).timestamp()
        end = datetime.fromisoformat(ex["completed_at"].replace("Z", "+00:00")).timestamp()
        during = [b for t, b in samples if start <= t <= end]
        if during:
            rows.append((r["unique_id"].split(".")[-1], max(during) / 2**30, end - start))
    return sorted(rows, key=lambda x: -x[1])


def running_at_peak(project: Path, samples) -> list[str]:
    """The models and tests running when the build's PSS peaked (target/run_results.json's timing): with two
    threads, the nodes whose memory adds up to the peak."""
    t_peak = max(samples, key=lambda s: s[1])[0]
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    out = []
    for r in results:
        timing = {t["name"]: t for t in r.get("timing", [])}
        ex = timing.get("execute")
        if not ex:
            continue
        start = datetime.fromisoformat(ex["started_at"].replace("Z", "+00:00")).timestamp()
        end = datetime.fromisoformat(ex["completed_at"].replace("Z", "+00:00")).timestamp()
        if start - 1 <= t_peak <= end + 1:  # the PSS is read once a second
            out.append(r["unique_id"].split(".")[-1])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", choices=tuple(SELECTION), default="light")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--replicas", type=int, default=None, help="var replicas (default: the default scale)")
    ap.add_argument("--profile", action="store_true", help="one build with --threads 1, memory per node")
    ap.add_argument("--project", type=Path, default=None, help="reuse this scratch copy (default: a new one)")
    args = ap.parse_args()
    project = args.project or scratch_project()
    extra = list(SELECTION[args.build])
    if args.replicas is not None:
        extra += ["--vars", f"{{replicas: {args.replicas}}}"]
    title = f"dbt build {' '.join(extra) or '(light default)'}"
    if args.profile:
        clean(project)
        load = os.getloadavg()
        got = run_build(project, [*extra, "--threads", "1"])
        lines = [f"## Memory per node: {title} --threads 1", "",
                 f"Machine: {machine()}. Date: {time.strftime('%Y-%m-%d %H:%M')} UTC. Load average before: "
                 f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f}. Command: `{' '.join(sys.argv)}`. Profiler: the PSS "
                 f"of the dbt process tree every second, attributed to the node running (one thread).", "",
                 f"wall {got['wall']:.1f} s, peak {got['peak'] / 2**30:.2f} GiB", "",
                 "| node | peak PSS of the tree while it ran (GiB) | seconds |", "|---|---|---|"]
        lines += [f"| {n} | {g:.2f} | {s:.1f} |" for n, g, s in node_profile(project, got["samples"])[:25]]
        dump(ROOT / "bench" / "results" / f"memory_{args.build}.md", "\n".join(lines) + "\n")
        return
    walls, peaks, rss_peaks, disks, loads, at_peaks = [], [], [], [], [], []
    for _ in range(args.runs):
        clean(project)
        loads.append(os.getloadavg())
        got = run_build(project, extra)
        at_peaks.append(running_at_peak(project, got["samples"]))
        walls.append(got["wall"])
        peaks.append(got["peak"] / 2**30)
        rss_peaks.append(got["rss_peak"] / 2**30)
        disks.append(on_disk(project) / 1e6)
    loads.append(os.getloadavg())
    again = run_build(project, extra)
    images = project / "exports" / "images"
    lines = [f"## {title}", "",
             f"Machine: {machine()}. Date: {time.strftime('%Y-%m-%d %H:%M')} UTC. Command: `{' '.join(sys.argv)}`.",
             f"Load averages (1, 5, 15 min) before each run and before the rebuild: "
             + "; ".join(f"{a:.1f} {b:.1f} {c:.1f}" for a, b, c in loads), "",
             "| measure | median | runs |", "|---|---|---|",
             f"| wall (s) | {statistics.median(walls):.1f} | {', '.join(f'{w:.1f}' for w in walls)} |",
             f"| peak PSS, dbt process tree (GiB; shared pages counted once) | {statistics.median(peaks):.2f} | "
             f"{', '.join(f'{p:.2f}' for p in peaks)} |",
             f"| peak of the RSS sum, dbt process tree (GiB; a forked child's shared pages counted again) | "
             f"{statistics.median(rss_peaks):.2f} | {', '.join(f'{p:.2f}' for p in rss_peaks)} |",
             f"| on disk, database + exports (MB) | {statistics.median(disks):.0f} | "
             f"{', '.join(f'{d:.0f}' for d in disks)} |",
             f"| rebuild, nothing changed (s) | {again['wall']:.1f} | one run, peak PSS {again['peak'] / 2**30:.2f} GiB |",
             ""]
    lines.append("Nodes running at each run's peak: " + "; ".join(", ".join(n) or "none" for n in at_peaks) + ".")
    if images.is_dir():
        lines.append(f"Images: {len(list(images.glob('*.png')))} PNGs.")
    name = f"build_{args.build}" + (f"_x{args.replicas}" if args.replicas else "")
    dump(ROOT / "bench" / "results" / f"{name}.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
