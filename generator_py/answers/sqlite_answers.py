"""Cross-check answers with a second engine: transpile each question's DuckDB SQL to SQLite with sqlglot
and run it with Python's sqlite3 on the same table (loaded as `T`)."""
from __future__ import annotations

import multiprocessing as mp
import os
import sqlite3
from typing import Iterable, Mapping, Sequence

import pandas as pd
import sqlglot

from ..core.formatting import format_value


def load_table(con: sqlite3.Connection, frame: pd.DataFrame, name: str = "T") -> None:
    """A relational table as the SQLite table `name` (attributes TEXT, Value REAL), replacing one of that name."""
    cols = list(frame.columns)
    decl = ", ".join(f'"{c}" REAL' if c.lower() == "value" else f'"{c}" TEXT' for c in cols)
    con.execute(f"DROP TABLE IF EXISTS {name}")
    con.execute(f"CREATE TABLE {name} ({decl})")
    rows = []
    for rec in frame.itertuples(index=False, name=None):
        rows.append(tuple(
            (float(v) if c.lower() == "value" else (None if v is None or (isinstance(v, float) and v != v) else str(v)))
            for c, v in zip(cols, rec)))
    con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * len(cols))})", rows)


def to_sqlite(sql: str) -> str:
    return sqlglot.transpile(sql, read="duckdb", write="sqlite")[0]


def _run_group(args) -> dict:
    frame, questions = args
    con = sqlite3.connect(":memory:")
    try:
        load_table(con, frame)
        out = {}
        for qid, sql in questions:
            out[qid] = [list(r) for r in con.execute(to_sqlite(sql)).fetchall()]
        return out
    finally:
        con.close()


def _worker_context():
    """Worker processes started by a fork server, never forked from this process: dbt runs models in threads,
    and a worker forked while another model's thread holds a lock (SQLite's own memory mutex, an import's lock)
    would wait on it forever. The server preloads this module only (not dbt's `__main__`)."""
    if "forkserver" not in mp.get_all_start_methods():
        return mp.get_context("spawn")
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    return ctx


def sqlite_answers(tables: Mapping[str, pd.DataFrame], questions: Iterable[tuple[str, str, str]],
                   workers: int | None = None) -> dict[str, list[list]]:
    """Structured SQLite answers of (question_id, table_id, sql) triples, keyed by question_id.

    With `workers` > 1 (default: min(2, CPUs) when there are many questions) tables are spread over
    that many processes.
    """
    by_table: dict[str, list[tuple[str, str]]] = {}
    n = 0
    for qid, tid, sql in questions:
        by_table.setdefault(tid, []).append((qid, sql))
        n += 1
    jobs = [(tables[tid], qs) for tid, qs in by_table.items()]
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if n >= 2000 else 1
    out: dict[str, list[list]] = {}
    if workers <= 1:
        for j in jobs:
            out.update(_run_group(j))
        return out
    ctx = _worker_context()
    with ctx.Pool(workers) as pool:
        for part in pool.imap_unordered(_run_group, jobs, chunksize=max(1, len(jobs) // (workers * 8) or 1)):
            out.update(part)
    return out


def _canon(row: Sequence) -> tuple:
    return tuple(format_value(v) for v in row)


def compare_answers(expected_rows: Sequence[Sequence], actual_rows: Sequence[Sequence], ordered: bool) -> bool:
    """Equal after canonical formatting (numbers to two decimals); as multisets unless `ordered`."""
    a = [_canon(r) for r in expected_rows]
    b = [_canon(r) for r in actual_rows]
    if ordered:
        return a == b
    return sorted(a, key=repr) == sorted(b, key=repr)
