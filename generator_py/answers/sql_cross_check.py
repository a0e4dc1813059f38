"""Compares the stored (DuckDB) answers with SQLite running each question's transpiled SQL text."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa

from .sqlite_answers import compare_answers, sqlite_answers
from ..tables.relational import relational_rows
from ..core.rng import stable_int

SAMPLE_SIZE = 1000


def table_frames(rows: "pd.DataFrame | pa.Table", table_ids: set[str]) -> dict[str, pd.DataFrame]:
    """T_REL of each table as a frame: one text column per attribute and `Value`."""
    return {tid: pd.DataFrame(t.records, columns=t.names + ["Value"])
            for tid, t in relational_rows(rows, table_ids).items()}


def choose_questions(questions: pd.DataFrame, check_all: bool, seed: int) -> pd.DataFrame:
    """Every question, or a fixed seeded sample of SAMPLE_SIZE."""
    if not check_all and len(questions) > SAMPLE_SIZE:
        order = questions["question_id"].map(lambda q: stable_int(seed, "cross-check", q))
        questions = questions.assign(_o=order).nsmallest(SAMPLE_SIZE, "_o").drop(columns="_o")
    return questions.sort_values("question_id")


def cross_check_frame(questions: pd.DataFrame, answers: pd.DataFrame, rows: "pd.DataFrame | pa.Table") -> pd.DataFrame:
    """SQLite vs DuckDB for `questions` (answers and rows may cover more questions and tables)."""
    expected: dict[str, list[list]] = {}
    answers = answers.sort_values(["question_id", "answer_row"])
    for qid, values in zip(answers["question_id"], answers["answer_values"]):
        expected.setdefault(qid, []).append(list(values))
    frames = table_frames(rows, set(questions["table_id"]))
    got = sqlite_answers(frames, zip(questions["question_id"], questions["table_id"], questions["sql"]))
    out = []
    for q in questions.itertuples(index=False):
        mine, theirs = expected.get(q.question_id, []), got.get(q.question_id, [])
        ordered = " ORDER BY " in q.sql.upper()
        out.append((q.question_id, q.table_id, int(q.template_id), ordered, json.dumps(mine), json.dumps(theirs),
                    compare_answers(mine, theirs, ordered)))
    return pd.DataFrame(out, columns=["question_id", "table_id", "template_id", "ordered", "duckdb_answer",
                                      "sqlite_answer", "agrees"])
