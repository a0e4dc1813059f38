"""Forks that never catch another thread half way through an import or through pyarrow's pandas set-up (SQLite's
locks have their own gate: sqlite_gate).

A dbt build runs models in threads of one process, and forks children (`child_process`, multiprocessing's
workers). A child has only the forking thread; a lock another thread held at the fork stays held in the child
for good. Two such locks:

- the lock of a module being imported: a child forked while another thread imports a module (the models import
  some libraries on first use) waits forever when it imports that module itself (CPython 3.11; the tests
  reproduce it);
- pyarrow's lock around its one-time set-up of the bridge to pandas, made on a process's first conversion: a
  child forked meanwhile waits forever on its own first conversion (a build hung so: the export's forked writer,
  started while another model made its first frame).

Importing `generator_py` registers a hook that every fork of the process runs first, in the forking thread: it
waits until no other thread is inside an import (at most `IMPORT_WAIT_S`: a thread that waits on the forking
one cannot hold the fork forever), then makes pyarrow's bridge ready (at once when it is; else it waits for the
thread making it). While it waits, another thread may register fork hooks of its own (by importing their
module): those run after this fork without their `before` having run (sqlite_gate allows for it).
Each child then freezes the objects it inherited (`gc.freeze`), so that its garbage collector leaves their pages
shared with the parent.
"""
from __future__ import annotations

import gc
import os
import sys
import threading
import time

IMPORT_WAIT_S = 30.0


def _importing_elsewhere() -> bool:
    """Whether a thread other than this one holds the lock of a module it is importing (CPython's importlib
    keeps one lock per module being imported; without that bookkeeping, False)."""
    locks = getattr(sys.modules.get("importlib._bootstrap"), "_module_locks", None)
    if not locks:
        return False
    me = threading.get_ident()
    for ref in list(locks.values()):  # one C call: no other thread runs meanwhile
        lock = ref()
        if lock is not None and getattr(lock, "count", 0) and getattr(lock, "owner", me) != me:
            return True
    return False


def imports_finished() -> None:
    """Wait until no other thread is inside an import, or IMPORT_WAIT_S have passed."""
    deadline = time.monotonic() + IMPORT_WAIT_S
    while _importing_elsewhere() and time.monotonic() < deadline:
        time.sleep(0.005)


def arrow_pandas_bridge_ready() -> None:
    """Finish (or wait for) pyarrow's one-time pandas set-up in this process, if pyarrow is imported."""
    lib = sys.modules.get("pyarrow.lib")
    if lib is not None:
        lib._pandas_api.have_pandas  # noqa: B018  (the property runs the set-up under pyarrow's lock)


def before_fork() -> None:
    imports_finished()
    arrow_pandas_bridge_ready()


os.register_at_fork(before=before_fork)
# A forked child shares its parent's pages until it writes to them. The cyclic garbage collector writes to the
# header of every object it examines: a child's first full collection would copy every page of the parent's heap
# (a dbt process's: its manifest, the models' frames) into the child. Frozen, the inherited objects are never
# examined in the child; the parent's collector is untouched.
os.register_at_fork(after_in_child=gc.freeze)
