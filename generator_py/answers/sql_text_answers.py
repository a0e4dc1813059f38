"""The answers of the families whose answer is their own SQL text (kind `sql_text`: two tables, OLAP grouping):
DuckDB runs each question's SQL on its relational tables as it stands (the ground truth), and SQLite runs the
family's equivalent query (`sqlite_sql`: the text transpiled, or a union of plain GROUP BYs where SQLite has no
ROLLUP or GROUPING SETS) to check it, beside the answer the generator computed in Python.

A question reads the tables of its `tables` list under the names TABLE_NAMES gives (`T`; `T1`, `T2`).
"""
from __future__ import annotations

import json
import sqlite3
from typing import Mapping

import duckdb
import pandas as pd
import pyarrow as pa

from ..core.formatting import format_value
from ..questions.families import ALL_FAMILIES
from ..questions.families.sql_text import TABLE_NAMES
from ..tables.relational import relational_rows
from .sql_cross_check import table_frames
from .sqlite_answers import compare_answers, load_table

CHECK_COLUMNS = ("question_id", "table_id", "family", "duckdb_answer", "sqlite_answer", "generator_answer", "agrees")


def _tables_of(questions: pd.DataFrame) -> list[list[str]]:
    return [[str(t) for t in ts] for ts in questions["tables"].tolist()]


def _needed(questions: pd.DataFrame) -> set[str]:
    return {t for ts in _tables_of(questions) for t in ts}


ANSWER_SCHEMA = pa.schema([("question_id", pa.string()), ("answer_row", pa.int64()),
                           ("answer_values", pa.list_(pa.string()))])


def _arrow_tables(rows: pd.DataFrame, table_ids: set[str]) -> dict[str, pa.Table]:
    """T_REL of each table as Arrow (attributes as text, NULL kept; `Value` double): Arrow tables register in
    DuckDB far faster than pandas frames, and a question registers each table it reads."""
    out = {}
    for tid, t in relational_rows(rows, table_ids).items():
        names = t.names
        columns = {n: pa.array([r[i] for r in t.records], type=pa.string()) for i, n in enumerate(names)}
        columns["Value"] = pa.array([r[-1] for r in t.records], type=pa.float64())
        out[tid] = pa.table(columns)
    return out


def duckdb_answers(questions: pd.DataFrame, rows: pd.DataFrame) -> pa.Table:
    """int_sql_text_answers: one row per answer row of every question (question_id, tables, sql), values as
    canonical text (NULL kept), in the order its SQL gives. `rows`: int_relational_rows of their tables."""
    frames = _arrow_tables(rows, _needed(questions))
    # one thread: each query reads a few dozen rows, and starting parallel work would cost more than it saves
    con = duckdb.connect(":memory:", config={"threads": 1})
    out = []
    try:
        for qid, tables, sql in zip(questions["question_id"].tolist(), _tables_of(questions),
                                    questions["sql"].tolist()):
            names = TABLE_NAMES[len(tables)]
            for name, tid in zip(names, tables):
                con.register(name, frames[tid])
            try:
                result = con.execute(sql).fetchall()
            except duckdb.Error as e:
                raise ValueError(f"question {qid}: DuckDB cannot run its SQL ({e}): {sql}") from None
            finally:
                for name in names:
                    con.unregister(name)
            for i, row in enumerate(result, start=1):
                out.append((qid, i, [format_value(v) for v in row]))
    finally:
        con.close()
    out.sort(key=lambda r: (r[0], r[1]))
    return pa.table([list(c) for c in zip(*out)] if out else [[], [], []], schema=ANSWER_SCHEMA)


def sqlite_rows(frames: Mapping[str, pd.DataFrame], tables: list[str], sql: str) -> list[list]:
    con = sqlite3.connect(":memory:")
    try:
        for name, tid in zip(TABLE_NAMES[len(tables)], tables):
            load_table(con, frames[tid], name)
        return [list(r) for r in con.execute(sql).fetchall()]
    finally:
        con.close()


def cross_check(questions: pd.DataFrame, answers: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """int_sql_text_cross_check: per question (question_id, table_id, family, tables, spec_json, py_answer_json)
    its DuckDB answer (`answers`: int_sql_text_answers rows), SQLite's run of the family's equivalent query and
    the generator's answer, and whether the three agree (as multisets of rows: SQLite's union has no order)."""
    expected: dict[str, list[list]] = {}
    for qid, values in zip(answers["question_id"].tolist(), answers["answer_values"].tolist()):
        expected.setdefault(qid, []).append(list(values))
    frames = table_frames(rows, _needed(questions))
    out = []
    for q, tables in zip(questions.sort_values("question_id").itertuples(index=False),
                         _tables_of(questions.sort_values("question_id"))):
        family = ALL_FAMILIES.get(q.family)
        theirs = sqlite_rows(frames, tables, family.sqlite_sql(json.loads(q.spec_json)))
        mine, generated = expected.get(q.question_id, []), json.loads(q.py_answer_json)
        agrees = bool(mine) and compare_answers(mine, theirs, False) and compare_answers(mine, generated, False)
        out.append((q.question_id, q.table_id, q.family, json.dumps(mine), json.dumps(theirs), json.dumps(generated),
                    agrees))
    types = [pa.string()] * 6 + [pa.bool_()]
    return pa.table([pa.array([r[i] for r in out], type=t) for i, t in enumerate(types)], names=list(CHECK_COLUMNS))
