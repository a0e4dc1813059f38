"""Memory and process bounds of a program as a whole: a cgroup v1 `memory` and `pids` pair per worker.

The host makes, under its own cgroup of each controller, a folder for the worker (the worker and its
sandbox start in it) with a `program` folder inside. Each program process moves itself into
`program` before its code runs, so everything it forks is counted there: memory.limit_in_bytes (and
memory.memsw.limit_in_bytes where swap is accounted) is the program's `memory_mb` over all its
processes, pids.max its `processes`. Pages the program shares with the warm worker stay charged to
the worker, so the limit counts what the program itself adds. When the kernel kills one of the
program's processes at the limit, its `oom_kill` count rises and the worker reports a memory error.

Where no cgroup can be made (no v1 hierarchy, not root), `available()` is false and the limits
fall back to rlimits whose product is the total (see rlimits.apply_limits).
"""
from __future__ import annotations

import itertools
import os
import shlex
import signal
import time
from pathlib import Path
from typing import Optional

ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids")
PROGRAM = "program"
_counter = itertools.count()
_MB = 1024 * 1024


def _own_path(controller: str) -> Optional[str]:
    """This process's cgroup in the v1 hierarchy of `controller` (None: no such hierarchy)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path.lstrip("/")
    return None


class WorkerCgroups:
    """The worker's folders of both controllers, made by the host; `remove()` when the worker is gone."""

    def __init__(self) -> None:
        self.dirs: dict[str, Path] = {}
        name = f"hctqa-sandbox-{os.getpid()}-{next(_counter)}"
        try:
            for controller in CONTROLLERS:
                own = _own_path(controller)
                if own is None or not (ROOT / controller / own).is_dir():
                    raise OSError(f"no cgroup v1 {controller} hierarchy")
                path = ROOT / controller / own / name
                path.mkdir()
                self.dirs[controller] = path
                (path / PROGRAM).mkdir()
        except OSError:
            self.remove()

    def available(self) -> bool:
        return set(self.dirs) == set(CONTROLLERS)

    def command(self, argv: list[str]) -> list[str]:
        """`argv` started inside the worker's cgroups: a shell moves itself into them, then execs `argv`.

        Not a preexec_fn: Python code between fork and exec in the threaded evaluating process can
        crash the child (another thread may hold a lock the child then needs)."""
        moves = " && ".join(f"echo $$ > {shlex.quote(str(path / 'cgroup.procs'))}" for path in self.dirs.values())
        return ["/bin/sh", "-c", f'{moves} && exec "$@"', "sh", *argv]

    def kill_all(self) -> None:
        """SIGKILL every process in the worker's folders: the worker, its sandbox and its program's."""
        for path in self.dirs.values():
            for folder in (path, path / PROGRAM):
                try:
                    pids = (folder / "cgroup.procs").read_text().split()
                except OSError:
                    continue
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass

    def remove(self) -> None:
        for path in self.dirs.values():
            for folder in (path / PROGRAM, path):
                deadline = time.monotonic() + 5
                while folder.exists():
                    try:
                        folder.rmdir()
                    except OSError:  # busy while the kernel finishes killed processes
                        if time.monotonic() > deadline:
                            break
                        time.sleep(0.05)
        self.dirs = {}


class ProgramCgroup:
    """Inside the worker: the `program` folders (seen at `memory_dir`, `pids_dir`), limited per program."""

    def __init__(self, memory_dir: str, pids_dir: str):
        self.memory, self.pids = Path(memory_dir) / PROGRAM, Path(pids_dir) / PROGRAM
        self._swap = (self.memory / "memory.memsw.limit_in_bytes").exists()

    def limit(self, memory_mb: int, processes: int) -> None:
        """Set before each program (the previous one has ended: its folder holds no process)."""
        try:
            (self.memory / "memory.force_empty").write_text("0")  # uncharge what the last program left cached
        except OSError:
            pass
        total = memory_mb * _MB
        names = ["memory.limit_in_bytes"]
        if self._swap:  # memory+swap must stay >= memory: raise it first, lower it last
            swap = "memory.memsw.limit_in_bytes"
            names = [swap, *names] if int((self.memory / swap).read_text()) < total else [*names, swap]
        for name in names:
            (self.memory / name).write_text(str(total))
        (self.pids / "pids.max").write_text(str(processes))

    def join(self) -> None:
        """The program process moves itself in, before its code runs (its children follow)."""
        (self.memory / "cgroup.procs").write_text("0")
        (self.pids / "cgroup.procs").write_text("0")

    def oom_kills(self) -> int:
        for line in (self.memory / "memory.oom_control").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return int((self.memory / "memory.failcnt").read_text())
