"""A fork waits for the SQLite calls in progress in other threads, so a child never inherits a SQLite mutex held
by a thread it does not have (its first SQLite call would wait forever)."""
from __future__ import annotations

import os
import threading
import time

import pandas as pd

from generator_py.core import sqlite_gate


def test_a_fork_waits_for_a_sqlite_call_in_another_thread_and_the_child_uses_sqlite():
    con = sqlite_gate.connect(":memory:", check_same_thread=False)
    inside = threading.Event()
    left = []

    def slow() -> int:  # runs inside SQLite's statement, so inside the gate
        inside.set()
        time.sleep(0.3)
        left.append(time.monotonic())
        return 1

    con.create_function("slow", 0, slow)

    def call() -> None:
        con.execute("select slow()").fetchall()

    thread = threading.Thread(target=call)
    thread.start()
    assert inside.wait(5)
    pid = os.fork()
    if pid == 0:  # the child: its own SQLite calls go through
        try:
            child = sqlite_gate.connect(":memory:")
            code = 0 if child.execute("select 41 + 1").fetchall() == [(42,)] else 1
        except BaseException:  # noqa: BLE001
            code = 2
        os._exit(code)
    forked = time.monotonic()
    thread.join()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert left and forked > left[0]  # the fork came after the statement, not in the middle of it


def test_the_gated_connection_reads_writes_and_iterates_as_sqlite3_does(tmp_path):
    con = sqlite_gate.connect(str(tmp_path / "s.sqlite"), isolation_level=None)
    con.executescript("create table t (k text primary key, v integer);")
    con.executemany("insert into t values (?, ?)", [("a", 1), ("b", 2), ("c", 3)])
    with con:
        con.execute("update t set v = v * 10 where k = ?", ("b",))
    assert [row for row in con.execute("select k, v from t order by k")] == [("a", 1), ("b", 20), ("c", 3)]
    cursor = con.execute("select v from t order by k")
    assert cursor.fetchone() == (1,) and cursor.fetchmany(1) == [(20,)] and cursor.fetchall() == [(3,)]
    assert con.execute("delete from t where v > ?", (2,)).rowcount == 2
    assert con.read_frame("select * from t where k = ?", params=["a"]).equals(pd.DataFrame({"k": ["a"], "v": [1]}))
    con.close()


def test_an_after_fork_hook_without_its_before_hook_leaves_the_gate_open():
    # a fork that began before the gate's hooks were registered (another thread imported the module while a
    # before hook of the fork waited) runs only the gate's after hook: the gate must stay usable
    gate = sqlite_gate._Gate()
    gate.after_fork_in_parent()
    done = threading.Event()

    def enter() -> None:
        with gate:
            done.set()

    threading.Thread(target=enter, daemon=True).start()
    assert done.wait(5)
    gate.before_fork()  # a fork of this thread, then of no other, closes and reopens it
    closed = threading.Event()
    threading.Thread(target=lambda: (gate.__enter__(), closed.set()), daemon=True).start()
    assert not closed.wait(0.3)
    gate.after_fork_in_parent()
    assert closed.wait(5)
