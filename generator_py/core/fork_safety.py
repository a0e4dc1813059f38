"""Forks that never catch pyarrow's pandas bridge half made (SQLite's locks have their own gate: sqlite_gate).

pyarrow sets up its bridge to pandas on the first conversion a process makes, under a lock of its own, and
importing pandas' pieces inside it. A dbt build runs models in threads of one process and forks children
(`child_process`, multiprocessing's workers): a child forked while another thread is inside that first
set-up inherits the lock held by a thread it does not have, and its own first conversion waits forever (a
build hung so: the export's forked writer, started while another model made its first frame).

Importing `generator_py` registers a hook that every fork of the process runs first, in the forking thread:
it makes the bridge ready (at once when it is; else it waits for the thread making it), so no child starts
with the set-up half done. A process that never imported pyarrow has no bridge to wait for.
"""
from __future__ import annotations

import os
import sys


def arrow_pandas_bridge_ready() -> None:
    """Finish (or wait for) pyarrow's one-time pandas set-up in this process, if pyarrow is imported."""
    lib = sys.modules.get("pyarrow.lib")
    if lib is not None:
        lib._pandas_api.have_pandas  # noqa: B018  (the property runs the set-up under pyarrow's lock)


os.register_at_fork(before=arrow_pandas_bridge_ready)
