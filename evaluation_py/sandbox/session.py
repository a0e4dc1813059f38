"""An icot session: the code blocks of one episode run in one sandboxed process, in order.

Variables persist from block to block; each block has its own wall clock and output cap, and its
answer is `answer` if the block set it, else what it printed. A block that times out, runs out of
memory or prints too much ends the session: later blocks get a `runtime` error saying so. The CPU
limit counts for the whole episode. The session holds one worker of its pool until it is closed.
"""
from __future__ import annotations

from typing import Optional

from .limits import Limits
from .pool import SLACK_S, SandboxError, SandboxPool, _to_result
from .program import check_inputs
from .result import Result


class Session:
    def __init__(self, pool: SandboxPool, table: Optional[dict], limits: Limits):
        self.pool, self.limits = pool, limits
        self._worker = pool._checkout()
        try:
            self._worker.request({"op": "open", "table": check_inputs(table), "limits": limits.to_dict()},
                                 limits.timeout_s + SLACK_S)
        except BaseException:
            self._release()
            raise

    def run(self, code: str) -> Result:
        if self._worker is None:
            raise SandboxError("the sandbox session is closed")
        reply = self._worker.request({"op": "block", "code": code}, self.limits.timeout_s + SLACK_S)
        return _to_result(reply, self.pool.sandbox)

    def close(self) -> None:
        if self._worker is not None:
            try:
                self._worker.request({"op": "close"}, SLACK_S)
            finally:
                self._release()

    def _release(self) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            self.pool._release(worker)

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
