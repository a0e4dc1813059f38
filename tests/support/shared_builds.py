"""A build made once a test session and read by every test that asks for it, also when pytest-xdist runs the
tests in several worker processes.

The pattern of pytest-xdist's documentation: the build lives in the base temp folder that the workers of a
session share; the first worker that asks for it takes a file lock and builds, the others wait on the lock
and read the finished build (or the failure of the first). At its end each worker checks that the database
it read is byte for byte the one built: a test that builds further works on a `clone`.

`build_ahead` starts the builds a session will ask for in a background thread (the dbt build is a
subprocess: it runs on a core of its own while the worker's first tests run), at a lower CPU priority so that
it takes the time the tests leave rather than slowing the tests that measure time; the fixture that asks for
a build then finds it built, or waits on the lock for the thread to finish it.
"""
from __future__ import annotations

import fcntl
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from .dbt_project import database_digest


AHEAD_NICENESS = 10


def session_folder(tmp_path_factory) -> Path:
    """The base temp folder of the session: under xdist the parent of every worker's own (popen-gw0, ...)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _build_once(folder: Path, build: Callable[[Path], None]) -> dict:
    """Build `folder`/project (`build(project)` makes the folder) unless a worker did; its recorded state: the
    database digest, or the error."""
    folder.mkdir(parents=True, exist_ok=True)
    project, state = folder / "project", folder / "state.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also when the process dies
        if not state.is_file():
            shutil.rmtree(project, ignore_errors=True)  # a build a dead worker left half done
            try:
                build(project)
            except BaseException as e:
                state.write_text(json.dumps({"error": f"{type(e).__name__}: {e}"}))
                raise
            state.write_text(json.dumps({"digest": database_digest(project)}))
        return json.loads(state.read_text())


def built(tmp_path_factory, name: str, build: Callable[[Path], None]) -> tuple[Path, dict]:
    """The project `name` of the session, made by `build(project)` once; and its recorded state."""
    folder = session_folder(tmp_path_factory) / "shared" / name
    recorded = _build_once(folder, build)
    if "error" in recorded:
        raise RuntimeError(f"the shared build {name!r} failed (built by another test or worker):\n{recorded['error']}")
    return folder / "project", recorded


def shared_build(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Iterator[Path]:
    """Yield the project `name`, made by `build(project)` once a session; fail the session when a test changed
    its database."""
    project, recorded = built(tmp_path_factory, name, build)
    yield project
    assert database_digest(project) == recorded["digest"], \
        f"a test changed the shared build {project}: build on a clone of it"


def build_ahead(tmp_path_factory, builds: list[tuple[str, Callable[[Path], None]]]) -> threading.Thread:
    """Build `builds` ((name, build) pairs) one after another in a background thread; join it at the end of
    the session. A failure is recorded for the fixture to raise, where a test asks for that build."""
    def run() -> None:
        # Linux: the nice value is the thread's own, and the dbt processes it starts inherit it
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                       min(19, os.getpriority(os.PRIO_PROCESS, 0) + AHEAD_NICENESS))
        for name, build in builds:
            try:
                _build_once(session_folder(tmp_path_factory) / "shared" / name, build)
            except Exception:
                pass  # recorded in its state.json

    thread = threading.Thread(target=run, name="shared builds", daemon=True)
    thread.start()
    return thread
