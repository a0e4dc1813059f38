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

`streamed_pool_map` is the other shape of the same work: many chunks through a pool of worker processes, the
results handed on in order while the later chunks are computed, a few at a time, so the caller holds a few
results, never all of them.

A forked child keeps every page the parent had at the fork for as long as it lives, also the pages the parent
frees afterwards (another model's frames, DuckDB's buffers): a pool forked from the dbt process that works for
minutes holds GiBs the build has long let go. `map_in_interpreters` runs such long work in fresh interpreters
instead (`python -m generator_py.core.child_process`), which hold only what they import and are sent.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import os
import pickle
import struct
import subprocess
import sys
import threading
import traceback
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, TypeVar

T = TypeVar("T")

_PROTOCOL = pickle.HIGHEST_PROTOCOL


class ChildComputationError(RuntimeError):
    """The child failed with an exception that could not be sent back as itself (its traceback is the message)."""


def in_child_process(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)`, computed in a forked child; its exception is raised here as itself (or, when it
    does not pickle, as a ChildComputationError with the child's traceback)."""
    if not _can_fork():
        return fn(*args, **kwargs)
    return _result(fn, *_collect(*_fork(fn, args, kwargs)))


def map_in_child_processes(fn: Callable[[Any], T], items: Sequence[Any]) -> list[T]:
    """`[fn(item) for item in items]`, each computed in a child of its own, all at once (give as many items
    as there are cores to use); results in the order of `items`, the first failure raised as in_child_process
    raises it."""
    if not _can_fork() or len(items) < 2:
        return [fn(item) for item in items]
    children = [_fork(fn, (item,), {}) for item in items]
    # read in order: a later child that finished first waits on its full pipe, it never blocks the others
    outcomes = [_collect(*child) for child in children]
    return [_result(fn, data, status) for data, status in outcomes]


def streamed_pool_map(fn: Callable[[Any], T], items: Iterable[Any], workers: int, ahead: Optional[int] = None,
                      initializer: Optional[Callable] = None, initargs: tuple = ()) -> Iterator[T]:
    """`fn(item)` for each of `items`, computed by `workers` worker processes and yielded in the order of
    `items`; at most `ahead` items (default two per worker) are submitted beyond the one being yielded, and an
    item is taken from `items` only when it is submitted, so a lazy iterable of chunks is made as it is used.
    The workers start at once (forked from the calling thread, before the first item is read); the pool is
    shut down when the iterator is exhausted or closed."""
    ahead = ahead or 2 * workers
    pool = ProcessPoolExecutor(workers, initializer=initializer, initargs=initargs)
    # a first task forks every worker now (the fork start method starts them all at the first submit), before
    # `items` is read: a lazy source's reads then stay out of the workers' copy of this process
    pool.submit(_nothing)
    source = iter(items)
    pending: deque = deque()

    def submit_next() -> None:
        for item in source:
            pending.append(pool.submit(fn, item))
            return

    try:
        for _ in range(ahead):
            submit_next()
    except BaseException:
        pool.shutdown(cancel_futures=True)
        raise

    def results() -> Iterator[T]:
        try:
            while pending:
                result = pending.popleft().result()
                submit_next()
                yield result
        finally:
            pool.shutdown(cancel_futures=True)

    return results()


def _nothing() -> None:
    return None


def _can_fork() -> bool:
    return hasattr(os, "fork") and os.environ.get("HCTQA_NO_FORK") != "1"


def _fork(fn: Callable, args: tuple, kwargs: dict) -> tuple[int, int]:
    """Start the child computing fn(*args, **kwargs); (its pid, the read end of its pipe)."""
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
                payload = _failure_payload(exc)
            with os.fdopen(write_end, "wb") as out:
                out.write(payload)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


def _failure_payload(exc: BaseException) -> bytes:
    """The exception being handled, pickled for `_result`: as itself with its traceback's text, or the text alone
    when it does not pickle."""
    text = traceback.format_exc()
    try:
        return pickle.dumps((False, exc, text), _PROTOCOL)
    except Exception:  # noqa: BLE001
        return pickle.dumps((False, None, text), _PROTOCOL)


def _collect(pid: int, read_end: int) -> tuple[bytes, int]:
    try:
        with os.fdopen(read_end, "rb") as got:
            data = got.read()  # a blocking read: the GIL is free for the other threads meanwhile
    finally:
        _, status = os.waitpid(pid, 0)
    return data, status


def _result(fn: Callable, data: bytes, status: int):
    if not data:
        raise ChildComputationError(f"the child process computing {getattr(fn, '__qualname__', fn)!r} ended "
                                    f"without a result (wait status {status})")
    result = pickle.loads(data)
    if result[0]:
        return result[1]
    _, exc, text = result
    if exc is None:
        raise ChildComputationError(f"in a child process:\n{text}")
    raise exc


def map_in_interpreters(function: str, items: Sequence[Any], workers: int, niceness: int = 0) -> list:
    """`[fn(item) for item in items]` computed by `workers` fresh Python interpreters (this one's executable and
    environment), results in the order of `items`. `function` names fn as "module:name" or "module:Class.name"
    (the interpreters import it); items and results travel pickled, so keep them small beside what fn computes.
    The workers run `niceness` steps below this process's priority. The first failure is raised as
    in_child_process raises it, after every worker has stopped."""
    if len(items) == 0:
        return []
    results: list = [None] * len(items)
    failure: list = []
    next_index = iter(range(len(items)))
    lock = threading.Lock()
    procs = [subprocess.Popen([sys.executable, "-m", __name__, function, str(niceness)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
             for _ in range(max(1, min(workers, len(items))))]

    def feed(proc: subprocess.Popen) -> None:
        try:
            while True:
                with lock:
                    i = None if failure else next(next_index, None)
                if i is None:
                    return
                _send(proc.stdin, pickle.dumps(items[i], _PROTOCOL))
                data = _receive(proc.stdout)  # a blocking read: the GIL is free for the other threads meanwhile
                if data is None:
                    raise ChildComputationError(f"the interpreter computing {function} ended without a result "
                                                f"(exit status {proc.wait()})")
                results[i] = _result(function, data, 0)
        except BaseException as exc:  # noqa: BLE001  (handed to the caller's thread)
            with lock:
                failure.append(exc)

    threads = [threading.Thread(target=feed, args=(proc,), daemon=True) for proc in procs]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    except BaseException:  # interrupted: no worker outlives the call
        failure.append(None)
        raise
    finally:
        for proc in procs:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # the end of the input: the interpreter exits
            if failure:
                proc.kill()
        for proc in procs:
            proc.wait()
            proc.stdout.close()
    if failure:
        raise failure[0]
    return results


def _send(stream, data: bytes) -> None:
    stream.write(struct.pack(">Q", len(data)) + data)
    stream.flush()


def _receive(stream) -> Optional[bytes]:
    """The next message, or None at the end of the stream."""
    head = stream.read(8)
    if len(head) < 8:
        return None
    size = struct.unpack(">Q", head)[0]
    data = stream.read(size)
    return data if len(data) == size else None


def _serve(function: str, niceness: int) -> None:
    """An interpreter of map_in_interpreters: fn(item) for each item read from stdin, each result (or failure)
    written to stdout, until stdin ends."""
    if niceness:
        os.nice(niceness)
    module, _, name = function.partition(":")
    fn = functools.reduce(getattr, name.split("."), importlib.import_module(module))
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # what fn prints must not mix with the results
    while (data := _receive(source)) is not None:
        try:
            payload = pickle.dumps((True, fn(pickle.loads(data))), _PROTOCOL)
        except Exception as exc:  # noqa: BLE001  (every failure goes back to the caller)
            payload = _failure_payload(exc)
        _send(sink, payload)


if __name__ == "__main__":
    try:
        _serve(sys.argv[1], int(sys.argv[2]))
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(1)  # the build was interrupted: its own message says so
