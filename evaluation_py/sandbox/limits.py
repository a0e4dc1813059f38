"""The resource limits one sandboxed program (or one icot session) runs under.

Every limit is enforced by the kernel or by the worker that watches the program, never by the
program itself: CPU seconds are an rlimit, memory and processes a cgroup over all the program's
processes (rlimit shares where no cgroup can be made, see cgroups), the wall clock and the output size
are watched by the worker, which kills the program's whole process tree when one is passed.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Limits:
    """Limits of one program; `timeout_s` and `output_bytes` apply to each code block of a session.

    memory_mb: memory the program's processes may add together on top of the warm interpreter with
    pandas loaded (a cgroup memory limit; each process's RLIMIT_AS is that base, measured in the worker
    when the program starts, plus memory_mb, or plus memory_mb / processes where there is no cgroup).
    cpu_s: CPU seconds of the program process (RLIMIT_CPU; for a session, of the whole episode).
    file_size_mb: largest file the program may write (RLIMIT_FSIZE); tmp_mb: size of its tmp dir.
    processes: processes the program may have at once, itself included (pids cgroup, and RLIMIT_NPROC on a
    uid of its own).
    output_bytes: stdout+stderr of one block, and the length of its answer.
    """

    timeout_s: float = 10.0
    cpu_s: int = 10
    memory_mb: int = 1024
    file_size_mb: int = 16
    tmp_mb: int = 64
    processes: int = 32
    output_bytes: int = 65536

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"sandbox limit {f.name!r} must be a positive number, got {value!r}")
        if self.processes < 2:
            raise ValueError(f"sandbox limit 'processes' must be at least 2 (the program and one child), got {self.processes!r}")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict, where: str = "sandbox limits") -> "Limits":
        """Limits from a config mapping; an unknown key is an error that names it."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {unknown}; known: {sorted(known)}")
        try:
            return cls(**raw)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
