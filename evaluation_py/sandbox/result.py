"""What running one program (or one block of a session) gives back."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Optional

# Why a program failed. `sandbox_violation`: it reached for something the sandbox withholds (a host
# file, the network, a read-only path, more processes than allowed).
ERROR_KINDS = ("syntax", "runtime", "timeout", "memory", "output_limit", "sandbox_violation")

# The sandboxes a result can name: bubblewrap namespaces, or the documented weaker rlimits-only one.
SANDBOX_NAMES = ("bubblewrap", "rlimits")


@dataclass(frozen=True)
class Result:
    status: str  # "ok" or "error"
    error_kind: Optional[str]  # one of ERROR_KINDS when status is "error"
    answer: Optional[str]  # `answer` as text if the program set it, else what it printed; None on error
    stdout: str  # stdout and stderr of the block, at most Limits.output_bytes
    wall_s: float
    sandbox: str  # which sandbox ran it: one of SANDBOX_NAMES
    message: str = ""  # the error in one line (exception type and text, or what the sandbox saw)

    def __post_init__(self) -> None:
        if self.status not in ("ok", "error"):
            raise ValueError(f"result status must be 'ok' or 'error', got {self.status!r}")
        if (self.status == "error") != (self.error_kind is not None):
            raise ValueError(f"result error_kind {self.error_kind!r} does not fit status {self.status!r}")
        if self.error_kind is not None and self.error_kind not in ERROR_KINDS:
            raise ValueError(f"unknown error kind {self.error_kind!r}; known: {ERROR_KINDS}")
        if self.sandbox not in SANDBOX_NAMES:
            raise ValueError(f"unknown sandbox {self.sandbox!r}; known: {SANDBOX_NAMES}")

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict:
        return asdict(self)
