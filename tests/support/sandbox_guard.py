"""An outer guard of the tests' own around hostile sandbox programs, so a broken sandbox cannot take
the machine down.

The guarded process (the sandbox CLI) is put into fresh cgroups: a pids cgroup (pids.max) and a
memory cgroup (a hard limit) in the v1 hierarchies where the machine has them (this one mounts
cgroups hybrid: pids and memory in v1, an empty v2 tree at /sys/fs/cgroup/unified), else in a v2
cgroup with those controllers, and a v2 cgroup for freezing and killing (cgroup.freeze,
cgroup.kill). After the test the guard records what was still in the cgroups (the sandbox should
have left nothing), freezes them, kills what is left, and removes them. Where no cgroup is writable
it falls back to prlimit-style rlimits on the guarded process (RLIMIT_AS and RLIMIT_NPROC) and
says so in `kind`.
"""
from __future__ import annotations

import itertools
import os
import resource
import signal
import time
from pathlib import Path

_CGROUP = Path("/sys/fs/cgroup")
_counter = itertools.count()


def _own_path(controller: str) -> str:
    """This process's cgroup path in a v1 hierarchy (so the guard nests inside the container's own)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path.lstrip("/")
    return ""


def _v2_root() -> Path | None:
    for root in (_CGROUP, _CGROUP / "unified"):
        if (root / "cgroup.controllers").exists():
            return root
    return None


class OuterGuard:
    def __init__(self, max_pids: int = 256, max_memory_mb: int = 4096):
        self.max_pids, self.max_memory = max_pids, max_memory_mb * 1024 * 1024
        self.name = f"hctqa-sandbox-test-{os.getpid()}-{next(_counter)}"
        self.dirs: list[Path] = []  # every cgroup created, the processes go into all of them
        self.v2: Path | None = None
        self.leftover: list[int] = []
        self.kind = self._create()

    def _mkdir(self, path: Path) -> Path:
        path.mkdir()
        self.dirs.append(path)
        return path

    def _create(self) -> str:
        v2_root = _v2_root()
        try:
            if v2_root is not None:
                controllers = set((v2_root / "cgroup.controllers").read_text().split())
                self.v2 = self._mkdir(v2_root / self.name)
                if {"pids", "memory"} <= controllers:
                    (self.v2 / "pids.max").write_text(str(self.max_pids))
                    (self.v2 / "memory.max").write_text(str(self.max_memory))
                    return "cgroup2"
            pids = self._mkdir(_CGROUP / "pids" / _own_path("pids") / self.name)
            (pids / "pids.max").write_text(str(self.max_pids))
            memory = self._mkdir(_CGROUP / "memory" / _own_path("memory") / self.name)
            (memory / "memory.limit_in_bytes").write_text(str(self.max_memory))
            return "cgroup-v1 pids+memory, v2 freeze/kill" if self.v2 else "cgroup-v1"
        except OSError:
            self._remove()
            self.v2 = None
            return "prlimit"  # no writable cgroups: the weaker fallback

    def enter(self) -> None:
        """preexec_fn of the guarded process: join the cgroups (or take the rlimits)."""
        if self.kind == "prlimit":
            resource.setrlimit(resource.RLIMIT_AS, (self.max_memory, self.max_memory))
            resource.setrlimit(resource.RLIMIT_NPROC, (self.max_pids, self.max_pids))
            return
        for path in self.dirs:
            (path / "cgroup.procs").write_text(str(os.getpid()))

    def processes(self) -> list[int]:
        found: set[int] = set()
        for path in self.dirs:
            text = (path / "cgroup.procs").read_text()
            found.update(int(p) for p in text.split())
        return sorted(found)

    def settle(self, wait_s: float = 3.0) -> None:
        """Record what is still inside once the guarded process has ended (given the kernel a moment
        to finish tearing down killed namespaces)."""
        if self.kind == "prlimit":
            return
        deadline = time.monotonic() + wait_s
        while self.processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.leftover = self.processes()

    def cleanup(self) -> None:
        if self.kind != "prlimit":
            if self.v2 is not None:
                (self.v2 / "cgroup.freeze").write_text("1")
                (self.v2 / "cgroup.kill").write_text("1")
            else:
                for pid in self.processes():
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            deadline = time.monotonic() + 10
            while self.processes() and time.monotonic() < deadline:
                time.sleep(0.05)
        self._remove()

    def _remove(self) -> None:
        for path in reversed(self.dirs):
            try:
                path.rmdir()
            except OSError:
                pass
        self.dirs = []
