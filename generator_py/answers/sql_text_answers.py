"""The answers of the families whose answer is their own SQL text (kind `sql_text`: two tables, OLAP grouping):
DuckDB runs each question's SQL on its relational tables as it stands (the ground truth), and SQLite runs the
family's equivalent query (`sqlite_sql`: the text transpiled, or a union of plain GROUP BYs where SQLite has no
ROLLUP or GROUPING SETS) to check it, beside the answer the generator computed in Python.

A question reads the tables of its `tables` list under the names TABLE_NAMES gives (`T`; `T1`, `T2`). The
questions reading the same tables run one after the other with those tables loaded once.
"""
from __future__ import annotations

import json
from typing import Iterator

import duckdb
import pandas as pd
import pyarrow as pa

from ..core.formatting import format_value
from ..questions.families import ALL_FAMILIES
from ..questions.families.sql_text import TABLE_NAMES
from ..tables.relational import TableRows, relational_rows
from .sqlite_answers import compare_answers
from ..core import sqlite_gate

CHECK_COLUMNS = ("question_id", "table_id", "family", "duckdb_answer", "sqlite_answer", "generator_answer", "agrees")
ANSWER_SCHEMA = pa.schema([("question_id", pa.string()), ("answer_row", pa.int64()),
                           ("answer_values", pa.list_(pa.string()))])


def _by_tables(questions: pd.DataFrame, *columns: str) -> Iterator[tuple[tuple[str, ...], list[tuple]]]:
    """(tables, [(question_id, *columns) ...]) per distinct `tables` list, questions in question_id order."""
    groups: dict[tuple, list] = {}
    for row in zip(questions["question_id"].tolist(), questions["tables"].tolist(),
                   *(questions[c].tolist() for c in columns)):
        groups.setdefault(tuple(str(t) for t in row[1]), []).append((row[0],) + row[2:])
    for tables in sorted(groups):
        yield tables, sorted(groups[tables])


def _read(questions: pd.DataFrame, rows: pd.DataFrame) -> dict[str, TableRows]:
    return relational_rows(rows, {str(t) for ts in questions["tables"].tolist() for t in ts})


def _arrow(t: TableRows) -> pa.Table:
    """T_REL of one table: attributes as text (NULL kept), `Value` double (Arrow registers in DuckDB far faster
    than a pandas frame)."""
    columns = {n: pa.array([r[i] for r in t.records], type=pa.string()) for i, n in enumerate(t.names)}
    columns["Value"] = pa.array([r[-1] for r in t.records], type=pa.float64())
    return pa.table(columns)


def duckdb_answers(questions: pd.DataFrame, rows: pd.DataFrame) -> pa.Table:
    """int_sql_text_answers: one row per answer row of every question (question_id, tables, sql), values as
    canonical text (NULL kept), in the order its SQL gives. `rows`: int_relational_rows of their tables."""
    tables = {tid: _arrow(t) for tid, t in _read(questions, rows).items()}
    # one thread: each query reads a few dozen rows, and starting parallel work would cost more than it saves
    con = duckdb.connect(":memory:", config={"threads": 1})
    out = []
    try:
        for read, asked in _by_tables(questions, "sql"):
            names = TABLE_NAMES[len(read)]
            for name, tid in zip(names, read):
                con.register(name, tables[tid])
            for qid, sql in asked:
                try:
                    result = con.execute(sql).fetchall()
                except duckdb.Error as e:
                    raise ValueError(f"question {qid}: DuckDB cannot run its SQL ({e}): {sql}") from None
                out.extend((qid, i, [format_value(v) for v in row]) for i, row in enumerate(result, start=1))
            for name in names:
                con.unregister(name)
    finally:
        con.close()
    out.sort(key=lambda r: (r[0], r[1]))
    return pa.table([list(c) for c in zip(*out)] if out else [[], [], []], schema=ANSWER_SCHEMA)


def _load(con: "sqlite_gate.Connection", t: TableRows, name: str) -> None:
    """A relational table as the SQLite table `name`: attributes TEXT, Value REAL."""
    decl = ", ".join([f'"{c}" TEXT' for c in t.names] + ['"Value" REAL'])
    con.execute(f"DROP TABLE IF EXISTS {name}")
    con.execute(f"CREATE TABLE {name} ({decl})")
    con.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * (len(t.names) + 1))})", t.records)


def cross_check(questions: pd.DataFrame, answers: pd.DataFrame, rows: pd.DataFrame) -> pa.Table:
    """int_sql_text_cross_check: per question (question_id, table_id, family, tables, spec_json, py_answer_json)
    its DuckDB answer (`answers`: int_sql_text_answers rows), SQLite's run of the family's equivalent query and
    the generator's answer, and whether the three agree (as multisets of rows: SQLite's union has no order)."""
    expected: dict[str, list[list]] = {}
    for qid, values in zip(answers["question_id"].tolist(), answers["answer_values"].tolist()):
        expected.setdefault(qid, []).append(list(values))
    tables = _read(questions, rows)
    out = []
    con = sqlite_gate.connect(":memory:")
    try:
        for read, asked in _by_tables(questions, "table_id", "family", "spec_json", "py_answer_json"):
            for name, tid in zip(TABLE_NAMES[len(read)], read):
                _load(con, tables[tid], name)
            for qid, table_id, family, spec_json, py_answer_json in asked:
                sql = ALL_FAMILIES.get(family).sqlite_sql(json.loads(spec_json))
                theirs = [list(r) for r in con.execute(sql).fetchall()]
                mine, generated = expected.get(qid, []), json.loads(py_answer_json)
                agrees = bool(mine) and compare_answers(mine, theirs, False) and compare_answers(mine, generated, False)
                out.append((qid, table_id, family, json.dumps(mine), json.dumps(theirs), json.dumps(generated), agrees))
    finally:
        con.close()
    out.sort(key=lambda r: r[0])
    types = [pa.string()] * 6 + [pa.bool_()]
    return pa.table([pa.array([r[i] for r in out], type=t) for i, t in enumerate(types)], names=list(CHECK_COLUMNS))
