"""A computation run in a forked child process, its result handed back: pure-Python work of a dbt Python model
that does not hold the dbt process's GIL while it runs.

dbt runs its models in threads of one process, and dbt-duckdb runs a Python model in the thread that builds
it: two Python models at a time share one core, whatever `threads` says. A model that first reads its inputs
(DuckDB works outside the GIL) and then hands the Python work to `in_child_process` lets the other thread's
model run on the other core. The child inherits the inputs with the parent's memory (copy on write: nothing
is pickled on the way in); the result comes back pickled through a pipe, so it should be small beside the
inputs (a frame of results, a list of written files). The child must not touch a DuckDB connection (its
threads are not in the child): read first, then compute in the child.

Where `os.fork` does not exist, or with HCTQA_NO_FORK=1 in the environment, the function runs in this process.
"""
from __future__ import annotations

import os
import pickle
import sys
import traceback
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_PROTOCOL = pickle.HIGHEST_PROTOCOL


class ChildComputationError(RuntimeError):
    """The child failed with an exception that could not be sent back as itself (its traceback is the message)."""


def in_child_process(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, computed in a forked child; its exception is raised here as itself (or, when it
    does not pickle, as a ChildComputationError with the child's traceback)."""
    if not hasattr(os, "fork") or os.environ.get("HCTQA_NO_FORK") == "1":
        return fn(*args, **kwargs)
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running the parent's exit handlers
        code = 0
        try:
            os.close(read_end)
            try:
                payload = pickle.dumps((True, fn(*args, **kwargs)), _PROTOCOL)
            except BaseException as exc:  # noqa: BLE001  (every failure goes back to the parent)
                text = traceback.format_exc()
                try:
                    payload = pickle.dumps((False, exc, text), _PROTOCOL)
                except Exception:  # noqa: BLE001
                    payload = pickle.dumps((False, None, text), _PROTOCOL)
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as got:
            data = got.read()  # a blocking read: the GIL is free for the other threads meanwhile
    finally:
        _, status = os.waitpid(pid, 0)
    if not data:
        raise ChildComputationError(f"the child process computing {getattr(fn, '__qualname__', fn)!r} ended without a "
                                f"result (wait status {status})")
    result = pickle.loads(data)
    if result[0]:
        return result[1]
    _, exc, text = result
    if exc is None:
        raise ChildComputationError(f"in a child process:\n{text}")
    raise exc
