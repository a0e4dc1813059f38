"""Cross-check answers with a second engine: transpile each question's DuckDB SQL to SQLite with sqlglot
and run it with Python's sqlite3 on the same table (loaded as `T`)."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from typing import Iterable, Mapping, Sequence

import pandas as pd
import sqlglot

from ..core.formatting import format_value
from ..core import sqlite_gate


def load_table(con: "sqlite_gate.Connection", frame: pd.DataFrame, name: str = "T") -> None:
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
    con = sqlite_gate.connect(":memory:")
    try:
        load_table(con, frame)
        out = {}
        for qid, sql in questions:
            out[qid] = [list(r) for r in con.execute(to_sqlite(sql)).fetchall()]
        return out
    finally:
        con.close()


def serve() -> None:
    """A worker process: the pickled list of jobs (a table and its questions each) on stdin, the answers of all
    of them, pickled, on stdout (`_in_processes`)."""
    out: dict[str, list[list]] = {}
    for job in pickle.load(sys.stdin.buffer):
        out.update(_run_group(job))
    pickle.dump(out, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)


def _in_processes(jobs: list, workers: int) -> dict[str, list[list]]:
    """The jobs' answers from `workers` fresh Python processes (fork and exec: dbt runs models in threads, and a
    process forked without exec while another model's thread held a lock, SQLite's own memory mutex for one,
    would wait on it forever)."""
    command = [sys.executable, "-c", f"from {__name__} import serve; serve()"]
    procs = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(workers)]
    try:
        for k, proc in enumerate(procs):  # every worker reads its whole share before it answers
            proc.stdin.write(pickle.dumps(jobs[k::workers], protocol=pickle.HIGHEST_PROTOCOL))
            proc.stdin.close()
        out: dict[str, list[list]] = {}
        for proc in procs:
            answers = proc.stdout.read()
            if proc.wait() != 0:
                raise RuntimeError(f"SQLite cross-check worker failed: {proc.stderr.read().decode()[-2000:]}")
            out.update(pickle.loads(answers))
        return out
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


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
    out.update(_in_processes(jobs, workers))
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
