"""The processes a process started, read from /proc: for tests that check a stop leaves none behind."""
from __future__ import annotations

import os
import time
from pathlib import Path


def _parents() -> dict[int, int]:
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        out[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])  # the command may hold spaces and ')'
    return out


def _programs(pid: int) -> set[str]:
    """The file names of process `pid`'s first two arguments: the program it runs, or the interpreter and the
    script (a console script such as `dbt` runs as `python .../dbt`); empty when it is gone."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:2]
    except OSError:
        return set()
    return {os.path.basename(a.decode(errors="replace")) for a in argv}


def descendants(pid: int, skip_programs: frozenset[str] = frozenset()) -> set[int]:
    """Every living process under `pid` (children, their children, ...), but the subtrees of the processes
    running a program of `skip_programs` (a session build the test process runs beside the test: `dbt`)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in out and not (skip_programs and _programs(child) & skip_programs):
                out.add(child)
                todo.append(child)
    return {p for p in out if alive(p)}


def alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def still_alive(pids: set[int], grace_s: float = 5.0) -> set[int]:
    """Those of `pids` still running after up to `grace_s` (the kernel takes a moment to end a killed tree)."""
    deadline = time.monotonic() + grace_s
    left = {p for p in pids if alive(p)}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {p for p in left if alive(p)}
    return left


def sandbox_cgroups(pid: int) -> list[Path]:
    """The cgroup folders the sandbox made for workers of process `pid` (evaluation_py/sandbox/cgroups.py),
    a child of this process (in this process's cgroups, where the sandbox makes its folders)."""
    out = []
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        for controller in ("memory", "pids"):
            if controller in names.split(","):
                out += (Path("/sys/fs/cgroup") / controller / path.lstrip("/")).glob(f"hctqa-sandbox-{pid}-*")
    return sorted(out)
