"""Stopping an evaluation on SIGINT / SIGTERM: no new request after the signal, what came back is stored.

Inside `dbt build` the evaluation runs in a worker thread of dbt, where no signal handler can be
set. dbt turns Ctrl-C into KeyboardInterrupt in its main thread and, while handling it, fires events
there (run results written, connections cancelled) before waiting for its workers (which would keep
sending every remaining request); a callback on dbt's events that sees that KeyboardInterrupt calls
`request_stop`. SIGTERM takes the same path: the project's dbt-duckdb plugin
(`evaluation_py.dbt_glue.stop_plugin`, named in profiles.yml) runs on dbt's main thread when dbt opens
a connection there, before any model, and makes SIGTERM raise KeyboardInterrupt as SIGINT does.

`request_stop` sets `STOP` (the runner, the backends and the code runs check it before each request
or program), stops running sandboxes at once (`add_stop_hook`), waits (at most `DRAIN_S`) until every
running evaluation step has stored what it received and closed its backend and sandboxes, prints one
line (answered, left, programs run and left, how to resume) and ends the process with status 130: dbt's own unwinding
would print a KeyboardInterrupt traceback. Outside dbt (the library called from a script) Ctrl-C
raises KeyboardInterrupt in the caller's thread, where the runner stores what came back as it unwinds.
"""
from __future__ import annotations

import functools
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable

STOP = threading.Event()
# Long enough for a backend to close and a sandbox to be killed and removed; requests stop at once.
DRAIN_S = 5.0

_lock = threading.Lock()
_active = 0
_idle = threading.Condition(_lock)
_counts = {"answered": 0, "missing": 0, "programs_run": 0, "programs_left": 0}
_stop_hooks: list[Callable[[], None]] = []


class EvaluationInterrupted(Exception):
    """The run stopped on a signal; what came back is stored, the next build sends the rest.
    `stats`: the interrupted run's counts so far (runner.run_predictions), when it had begun."""

    def __init__(self, message: str, stats: dict | None = None):
        super().__init__(message)
        self.stats = stats


def stopping() -> bool:
    return STOP.is_set()


def check() -> None:
    if STOP.is_set():
        raise EvaluationInterrupted(summary())


def summary() -> str:
    with _lock:
        c = dict(_counts)
    programs = (f"; {c['programs_run']} program(s) run and stored, {c['programs_left']} not run"
                if c["programs_run"] or c["programs_left"] else "")
    return (f"interrupted: {c['answered']} request(s) answered and stored, {c['missing']} left{programs}; "
            f"run the same build again to send only the missing ones")


def reset() -> None:
    """Clear the stop and the counts (for a process that runs more than one evaluation: a test session)."""
    STOP.clear()
    with _lock:
        for k in _counts:
            _counts[k] = 0


def count(answered: int = 0, missing: int = 0, programs_run: int = 0, programs_left: int = 0) -> None:
    """Add to this process's counts: answers stored, requests left unsent, programs run and left."""
    with _lock:
        _counts["answered"] += answered
        _counts["missing"] += missing
        _counts["programs_run"] += programs_run
        _counts["programs_left"] += programs_left


@contextmanager
def active():
    """Marks an evaluation step running (a stop waits for it to store what it has and unwind)."""
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


def stoppable(fn):
    """`fn` runs as an evaluation step (`active`): a stop during it waits for it, then ends the process."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with active():
            return fn(*args, **kwargs)
    return wrapper


def add_stop_hook(hook: Callable[[], None]) -> None:
    """`hook` is called (from the thread that handles the signal) when a stop is requested, until it is
    removed: for what cannot check `STOP` itself, such as a sandboxed program running."""
    with _lock:
        _stop_hooks.append(hook)
    if STOP.is_set():
        hook()


def remove_stop_hook(hook: Callable[[], None]) -> None:
    with _lock:
        if hook in _stop_hooks:
            _stop_hooks.remove(hook)


# how long the stop line waits for writes other threads had in flight when their output was turned off
LAST_WORD_WAIT_S = 0.1


def request_stop(exit_process: bool) -> None:
    """Set STOP and run the stop hooks; with `exit_process`, wait for running evaluation steps, print the
    line and exit 130."""
    STOP.set()
    with _lock:
        hooks = list(_stop_hooks)
    for hook in hooks:
        try:
            hook()
        except Exception:  # noqa: BLE001 - a hook that fails must not keep the others from running
            pass
    if not exit_process:
        return
    with _lock:
        if _active == 0:
            return  # nothing of ours is running: dbt's own stop is fine
    if threading.current_thread() is threading.main_thread():
        # a second Ctrl-C or SIGTERM must not break the wait below with a traceback
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)
    deadline = time.monotonic() + DRAIN_S
    with _lock:
        while _active > 0 and time.monotonic() < deadline:
            _idle.wait(timeout=max(0.0, deadline - time.monotonic()))
    sys.stdout.flush()
    sys.stderr.flush()
    # The line is the last word: dbt's worker thread reports the stopped model once our step has unwound, and
    # would print after it. What any thread prints from here on goes nowhere; the process ends anyway.
    last_word = os.dup(2)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    # A write another thread began before the dup2 may still land in the pipe (one its reader drains slowly,
    # under load: measured, a millisecond was not always enough, 20 ms was); it lands first if we wait
    time.sleep(LAST_WORD_WAIT_S)
    os.write(last_word, (summary() + "\n").encode())
    _release_semaphores()
    os._exit(130)


def _release_semaphores() -> None:
    # os._exit skips the finalizers that unlink dbt's multiprocessing semaphores; multiprocessing's
    # resource tracker would then print a warning about them after our one line
    try:
        import multiprocessing.util

        multiprocessing.util._run_finalizers(0)
    except Exception:  # noqa: BLE001 - best effort: the tracker unlinks them anyway
        pass


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


def _sigterm_as_ctrl_c(signum, frame):
    raise KeyboardInterrupt


def route_sigterm_to_ctrl_c() -> bool:
    """On the main thread of a dbt process: SIGTERM raises KeyboardInterrupt there, so dbt and the
    evaluation stop as on Ctrl-C. Left alone where SIGTERM already has a handler of someone else's
    (a program running dbt in-process). True when SIGTERM is routed."""
    if threading.current_thread() is not threading.main_thread():
        return False
    current = signal.getsignal(signal.SIGTERM)
    if current is _sigterm_as_ctrl_c:
        return True
    if current not in (signal.SIG_DFL, None):
        return False
    signal.signal(signal.SIGTERM, _sigterm_as_ctrl_c)
    return True
