"""SQLite connections that a fork never catches inside SQLite.

SQLite guards its allocator and its lists of VFSs and open files with process-wide mutexes, and Python runs
SQLite's calls without the GIL. A dbt build runs models in threads of one process and forks children
(`child_process`, multiprocessing's workers): a child forked while another thread is inside SQLite inherits a
mutex held by a thread it does not have, and its own first SQLite call waits forever (a build hung so: the SQLite
answer check's child, forked while `eval_requests` wrote the results index in another thread).

Every SQLite call of the project goes through `connect`'s connection and its cursors, each call inside the gate;
every fork of the process (`os.register_at_fork`) waits until no thread is inside the gate and keeps new calls
out until it is done. A call is short (a statement, a fetch), so a fork waits for one call at most per thread.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from typing import Any, Iterator


class _Gate:
    """Any number of threads inside at once; a fork waits for none inside and keeps the others out meanwhile."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._inside = 0
        self._forking: list[int] = []  # the threads between their fork's before and after hooks

    def __enter__(self) -> None:
        with self._cond:
            while self._forking:
                self._cond.wait()
            self._inside += 1

    def __exit__(self, *exc) -> None:
        with self._cond:
            self._inside -= 1
            if not self._inside:
                self._cond.notify_all()

    def before_fork(self) -> None:
        with self._cond:
            self._forking.append(threading.get_ident())
            while self._inside:
                self._cond.wait()

    def after_fork_in_parent(self) -> None:
        # A fork whose before hooks ran before this module registered its own (another thread imported it while
        # a hook waited: fork_safety's do) runs this after hook alone: it has nothing to undo
        with self._cond:
            me = threading.get_ident()
            if me in self._forking:
                self._forking.remove(me)
                self._cond.notify_all()

    def after_fork_in_child(self) -> None:  # the child has only the forking thread: nobody is inside
        self.__init__()


_GATE = _Gate()
os.register_at_fork(before=_GATE.before_fork, after_in_parent=_GATE.after_fork_in_parent,
                    after_in_child=_GATE.after_fork_in_child)


def connect(*args: Any, **kwargs: Any) -> "Connection":
    """`sqlite3.connect(*args, **kwargs)`, every call of the connection and its cursors inside the gate."""
    with _GATE:
        return Connection(sqlite3.connect(*args, **kwargs))


class Cursor:
    """A sqlite3 cursor whose calls into SQLite (executing, fetching, iterating, closing) are inside the gate."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    def execute(self, *args: Any) -> "Cursor":
        with _GATE:
            self._cursor.execute(*args)
        return self

    def executemany(self, *args: Any) -> "Cursor":
        with _GATE:
            self._cursor.executemany(*args)
        return self

    def fetchone(self) -> Any:
        with _GATE:
            return self._cursor.fetchone()

    def fetchmany(self, *args: Any) -> list:
        with _GATE:
            return self._cursor.fetchmany(*args)

    def fetchall(self) -> list:
        with _GATE:
            return self._cursor.fetchall()

    def __iter__(self) -> Iterator:
        return self

    def __next__(self) -> Any:
        with _GATE:
            return next(self._cursor)

    def close(self) -> None:
        with _GATE:
            self._cursor.close()

    def __getattr__(self, name: str) -> Any:  # rowcount, lastrowid, description: no call into SQLite's mutexes
        return getattr(self._cursor, name)


class Connection:
    """A sqlite3 connection whose calls into SQLite are inside the gate, its cursors too."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def execute(self, *args: Any) -> Cursor:
        with _GATE:
            return Cursor(self._connection.execute(*args))

    def executemany(self, *args: Any) -> Cursor:
        with _GATE:
            return Cursor(self._connection.executemany(*args))

    def executescript(self, script: str) -> Cursor:
        with _GATE:
            return Cursor(self._connection.executescript(script))

    def cursor(self) -> Cursor:
        with _GATE:
            return Cursor(self._connection.cursor())

    def commit(self) -> None:
        with _GATE:
            self._connection.commit()

    def rollback(self) -> None:
        with _GATE:
            self._connection.rollback()

    def close(self) -> None:
        with _GATE:
            self._connection.close()

    def read_frame(self, sql: str, params: Any = None) -> Any:
        """`pandas.read_sql_query(sql, connection, params=params)` (pandas reads a plain sqlite3 connection only)."""
        import pandas as pd

        with _GATE:
            return pd.read_sql_query(sql, self._connection, params=params)

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> Any:  # the transaction's commit or rollback, as sqlite3's context manager
        with _GATE:
            return self._connection.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:  # in_transaction, isolation_level, total_changes, row_factory
        return getattr(self._connection, name)
