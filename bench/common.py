"""Helpers shared by the benchmark scripts: timed real `dbt build`s in a scratch copy of the project."""
from __future__ import annotations

import atexit
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IGNORE = shutil.ignore_patterns(".venv", "target", "logs", "*.duckdb", "*.duckdb.wal", "exports", "reports", "cache",
                                ".git", "__pycache__", ".pytest_cache", "*.egg-info")

_MEASURE = """
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)
"""


def scratch_project() -> Path:
    """A copy of the project in a new temporary folder, removed when the benchmark exits: a build's database and
    exports there take several GB, and runs left behind fill the disk."""
    folder = Path(tempfile.mkdtemp(prefix="hctqa-bench-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    dest = folder / "project"
    shutil.copytree(ROOT, dest, ignore=IGNORE)
    return dest


def timed_dbt(project: Path, *args: str) -> tuple[float, float]:
    """Wall seconds and peak resident memory (GiB) of one `dbt` command in `project`."""
    dbt = str(Path(sys.executable).parent / "dbt")
    env = dict(os.environ, HCTQA_DUCKDB_PATH=str(project / "hctqa.duckdb"), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    out = subprocess.run([sys.executable, "-c", _MEASURE, dbt, *args, "--project-dir", str(project),
                          "--profiles-dir", str(project)], cwd=project, env=env, capture_output=True, text=True, check=True)
    wall, maxrss_kb, rc = out.stdout.split()
    if int(rc) != 0:
        raise RuntimeError(f"dbt {' '.join(args)} failed in {project}")
    return float(wall), int(maxrss_kb) / 1024 / 1024


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def report(title: str, rows: list[dict]) -> str:
    stamp = time.strftime("%Y-%m-%d")
    lines = [f"## {title}", "", f"Machine: {machine()}. Date: {stamp}. Command: `{' '.join(sys.argv)}`", ""]
    keys = list(rows[0])
    lines.append("| " + " | ".join(keys) + " |")
    lines.append("|" + "---|" * len(keys))
    for r in rows:
        lines.append("| " + " | ".join(str(r[k]) for k in keys) + " |")
    return "\n".join(lines) + "\n"


def median(xs) -> float:
    return round(statistics.median(xs), 2)


def dump(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(text)


__all__ = ["scratch_project", "timed_dbt", "report", "median", "dump", "json", "ROOT"]
