"""Stopping an evaluation on SIGINT / SIGTERM: no new request after the signal, what came back is stored.

Inside `dbt build` the evaluation runs in a worker thread of dbt, where no signal handler can be
set. dbt turns Ctrl-C into KeyboardInterrupt in its main thread and, while handling it, fires events
there (run results written, connections cancelled) before waiting for its workers (which would keep
sending every remaining request); a callback on dbt's events that sees that KeyboardInterrupt sets `STOP`, which the runner, the backends and the code runs check before each request.
The callback waits (at most `DRAIN_S`) until every running evaluation has stored what it received
and closed its backend and sandboxes, prints one line (answered, missing, how to resume) and ends
the process with status 130: dbt's own unwinding would print a KeyboardInterrupt traceback. Outside
dbt (`hctqa eval` runs dbt as a child and turns SIGTERM into SIGINT), `install_signal_handlers`
sets the same flag from the main thread.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import contextmanager

STOP = threading.Event()
DRAIN_S = 1.5

_lock = threading.Lock()
_active = 0
_idle = threading.Condition(_lock)
_counts = {"answered": 0, "missing": 0}


class EvaluationInterrupted(Exception):
    """The run stopped on a signal; what came back is stored, the next build sends the rest."""


def stopping() -> bool:
    return STOP.is_set()


def check() -> None:
    if STOP.is_set():
        raise EvaluationInterrupted(summary())


def summary() -> str:
    with _lock:
        answered, missing = _counts["answered"], _counts["missing"]
    return (f"interrupted: {answered} request(s) answered and stored, {missing} not sent; run the same "
            f"build again to send only the missing ones")


def count(answered: int = 0, missing: int = 0) -> None:
    with _lock:
        _counts["answered"] += answered
        _counts["missing"] += missing


@contextmanager
def active():
    """Marks an evaluation step running (the stop waits for it to store what it has and unwind)."""
    global _active
    watch_dbt()
    with _lock:
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            _idle.notify_all()


def request_stop(exit_process: bool) -> None:
    """Set STOP; with `exit_process`, wait for running evaluations, print the line and exit 130."""
    STOP.set()
    if not exit_process:
        return
    deadline = time.monotonic() + DRAIN_S
    with _lock:
        if _active == 0:
            return  # nothing of ours is running: dbt's own stop is fine
        while _active > 0 and time.monotonic() < deadline:
            _idle.wait(timeout=max(0.0, deadline - time.monotonic()))
    sys.stdout.flush()
    sys.stderr.write(summary() + "\n")
    sys.stderr.flush()
    os._exit(130)


def _on_dbt_event(event) -> None:
    # dbt handles Ctrl-C in its main thread (`except KeyboardInterrupt:` around its workers) and fires
    # events there (run results written, connections cancelled) before it waits for the workers
    if threading.current_thread() is threading.main_thread() and isinstance(sys.exc_info()[1], KeyboardInterrupt):
        request_stop(exit_process=True)


def watch_dbt() -> None:
    """Register the cancel-event callback, when dbt is running this code (each dbt invocation starts
    with its callbacks cleared, so it is looked for every time)."""
    if "dbt" not in sys.modules:
        return
    try:
        from dbt_common.events.event_manager_client import get_event_manager
    except ImportError:
        return
    manager = get_event_manager()
    with _lock:
        if _on_dbt_event not in manager.callbacks:
            manager.add_callback(_on_dbt_event)


def install_signal_handlers() -> None:
    """For a process of our own (main thread): SIGINT and SIGTERM set STOP (the run then stops cleanly)."""
    def handler(signum, frame):
        STOP.set()
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, handler)
