"""Running model-written code for pot and icot, with what each run gave cached beside the answers.

A run is decided by its sandbox, its limits, the table's renderings and the code blocks it runs
(one program for pot; an icot episode's blocks so far, in one fresh session): their hash is the key
of the run in the table `executions` of the predictions cache (the same SQLite file, a table of its
own). So a rebuild, or a resumed icot episode, reads the result instead of running the code again,
and a run repeated from scratch gives the same result (the sandbox fixes PYTHONHASHSEED; only a
program at the edge of a limit could come out differently, which the cache then settles).

`CodeRunner` keeps one warm sandbox pool per sandbox it was asked for, started on first use. A stop
(SIGINT / SIGTERM, running.interrupt) kills its pools at once: a program running ends with its sandbox,
and no other starts.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Callable, Optional

from ..running import interrupt
from ..sandbox import Limits, SandboxError, SandboxPool
from ..sandbox.bubblewrap import find_bwrap
from ..sandbox.program import TEXT_INPUTS
from ..sandbox.result import SANDBOX_NAMES
from generator_py.core import sqlite_gate

# Limits of one program, and of each block of an icot session (the CPU limit counts per session).
MODE_LIMITS = Limits(timeout_s=5.0, cpu_s=10, memory_mb=1024)
OUTPUT_CAP = 2000  # characters of a run's output kept per block (and shown to an icot model)
DEFAULT_SANDBOX = "bubblewrap"
TABLE_INPUTS = TEXT_INPUTS  # the renderings a program gets (df is read from csv)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS executions (
    execution_key TEXT PRIMARY KEY,
    sandbox TEXT NOT NULL,
    results_json TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS execution_links (
    link_key TEXT PRIMARY KEY,
    execution_key TEXT NOT NULL
);
"""


def check_sandbox(name, where: str) -> str:
    """An entry's `sandbox:` value, checked (None: the default, bubblewrap)."""
    name = DEFAULT_SANDBOX if name is None else name
    if name not in SANDBOX_NAMES:
        raise ValueError(f"{where}: key `sandbox` {name!r} must be one of {', '.join(SANDBOX_NAMES)} "
                         "(bubblewrap: namespaces and limits; rlimits: the weaker, limits-only sandbox)")
    return name


def require_sandbox(name: str, who: str) -> None:
    """Refuse, with the install hint, when `name` cannot run here (before any request is sent)."""
    if name == "bubblewrap":
        from ..sandbox import SandboxUnavailable

        try:
            find_bwrap()
        except SandboxUnavailable as exc:
            raise SandboxUnavailable(f"{who}: {exc}") from None


def execution_key(sandbox: str, table: dict, blocks: list[str], session: bool, limits: Limits = MODE_LIMITS) -> str:
    payload = json.dumps({"sandbox": sandbox, "limits": limits.to_dict(), "table": table, "blocks": blocks,
                          "session": session},
                         sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def result_row(result) -> dict:
    """What is kept of one block's run: ok or its error kind, the answer, output (capped), message."""
    return {"error_kind": result.error_kind, "answer": result.answer, "output": result.stdout[:OUTPUT_CAP],
            "message": result.message[:500], "sandbox": result.sandbox}


class ExecutionCache:
    def __init__(self, path: str | Path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite_gate.connect(str(path), timeout=60.0, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.executescript(_SCHEMA)

    def get(self, key: str) -> Optional[list[dict]]:
        row = self._con.execute("SELECT results_json FROM executions WHERE execution_key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, sandbox: str, results: list[dict]) -> None:
        self._con.execute("INSERT OR REPLACE INTO executions VALUES (?, ?, ?, ?)",
                          (key, sandbox, json.dumps(results, ensure_ascii=False), time.time()))

    def linked(self, link_key: str) -> Optional[list[dict]]:
        """The results a prediction is linked to (modes.outcomes), None when it has no link or run yet."""
        row = self._con.execute("SELECT execution_key FROM execution_links WHERE link_key = ?", (link_key,)).fetchone()
        return None if row is None else self.get(row[0])

    def link(self, link_key: str, execution_key: str) -> None:
        self._con.execute("INSERT OR REPLACE INTO execution_links VALUES (?, ?)", (link_key, execution_key))

    def close(self) -> None:
        self._con.close()


class CodeRunner:
    """Runs blocks for requests: `table_inputs(table_id, question_id)` gives the renderings a question's program
    reads (the question's own view of its table where it has one: benchmark_questions.rendering_<format>)."""

    def __init__(self, cache_path: str | Path, table_inputs: Callable[[str], dict], pool_size: int = 1):
        self.cache = ExecutionCache(cache_path)
        self.table_inputs = table_inputs
        self.pool_size = pool_size
        self._pools: dict[str, SandboxPool] = {}
        self.runs = 0  # blocks actually run (not read from the cache), for tests and logs
        interrupt.add_stop_hook(self.abort)

    def run(self, sandbox: str, table_id: str, blocks: list[str], session: bool = False,
            question_id: Optional[str] = None) -> list[dict]:
        """The results of `blocks`: one program (pot), or blocks run in order in one fresh session (icot)."""
        table = {k: v for k, v in self.table_inputs(table_id, question_id).items() if k in TABLE_INPUTS}
        key = execution_key(sandbox, table, blocks, session)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        with interrupt.active():  # a stop kills the sandbox running this program, then nothing more runs
            interrupt.check()
            try:
                pool = self._pool(sandbox)
                if not session:
                    results = [result_row(pool.run(code, table, MODE_LIMITS)) for code in blocks]
                else:
                    with pool.session(table, MODE_LIMITS) as live:
                        results = [result_row(live.run(code)) for code in blocks]
            except SandboxError:
                interrupt.check()  # killed by the stop: not a result, nothing is cached
                raise
        self.runs += len(blocks)
        self.cache.put(key, sandbox, results)
        interrupt.count(programs_run=1)
        return results

    def _pool(self, sandbox: str) -> SandboxPool:
        if sandbox not in self._pools:
            self._pools[sandbox] = SandboxPool(self.pool_size, MODE_LIMITS, sandbox=sandbox)
            if interrupt.stopping():  # stopped while it started
                self.abort()
        return self._pools[sandbox]

    def abort(self) -> None:
        """Kill every sandbox now (from any thread): the programs running end, none is started again."""
        for pool in list(self._pools.values()):
            pool.abort()

    def close(self) -> None:
        interrupt.remove_stop_hook(self.abort)
        for pool in self._pools.values():
            pool.close()
        self._pools = {}
        self.cache.close()

    def __enter__(self) -> "CodeRunner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
