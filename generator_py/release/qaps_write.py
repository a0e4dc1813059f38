"""Our benchmark in the layout of the release's `realWorld_HCT_qaps.json` (written as `hctqa_qaps.json`).

Tooling written for the release reads our benchmark unchanged: a list of tables ordered by
table_id, each with `table_info` (the release's keys, then ours) and its questions ordered by
question_id; properties under the release's names (`properties`), the answer as the `gt` string.
"""
from __future__ import annotations

import json
from typing import Any

import pandas as pd

from generator_py.exports.mart_frame import as_bool, as_int, as_text, check_frame, sorted_by_id
from generator_py.render.registry import format_names

from .properties import (
    NUMERIC_QUESTION_PROPERTIES,
    RELEASE_QUESTION_PROPERTY_COLUMNS,
    RELEASE_TABLE_PROPERTY_COLUMNS,
    TABLE_PROPERTY_COLUMNS,
)
from .table_csv import release_csv

# Keys of the release's `table_info`, in its order; the path/image keys have no counterpart
# for our tables and are written as null. Our extra keys follow them.
RELEASE_TABLE_INFO_KEYS: tuple[str, ...] = (
    "table_csv_path",
    "table_image_url",
    "table_image_local_path",
    "table_properties",
    "table_formats",
)
EXTRA_TABLE_INFO_KEYS: tuple[str, ...] = ("source", "dataset")

REQUIRED_TABLE_COLUMNS: tuple[str, ...] = ("table_id",) + format_names(text_only=True) + TABLE_PROPERTY_COLUMNS
REQUIRED_QUESTION_COLUMNS: tuple[str, ...] = ("question_id", "table_id", "question", "answer_gt") + tuple(
    RELEASE_QUESTION_PROPERTY_COLUMNS.values()
)

_NUMERIC_RELEASE = frozenset(NUMERIC_QUESTION_PROPERTIES)


def release_number(value: Any, where: str = "value") -> str:
    """A numeric question property as the release writes it: `"1"`; an absent number as `""`."""
    number = as_int(value, where)
    return "" if number is None else str(number)


# (release name, column, numeric?) of every question property, in the release's order
_QUESTION_PROPERTIES = tuple((name, column, name in _NUMERIC_RELEASE)
                             for name, column in RELEASE_QUESTION_PROPERTY_COLUMNS.items())


def _question_entry(q: dict[str, Any]) -> dict[str, Any]:
    qid = str(q["question_id"])
    question_text = as_text(q["question"])
    if question_text is None:
        raise ValueError(f"questions: {qid}: missing question text")
    props: dict[str, Any] = {}
    for release_name, column, numeric in _QUESTION_PROPERTIES:
        value = q[column]
        # the common cells (an int, a bool) first: this runs once per property of every question, and the
        # error's `where` is made only for a cell that needs the full check
        if numeric:
            props[release_name] = str(value) if type(value) is int else "" if value is None else release_number(
                value, f"questions: {qid}: {column}")
        else:
            props[release_name] = value if value is True or value is False else bool(
                as_bool(value, f"questions: {qid}: {column}"))
    return {
        "question_id": qid,
        "question": question_text,
        "gt": as_text(q["answer_gt"]) or "",
        "question_properties": props,
    }


def check_qaps_frames(tables: pd.DataFrame, questions: pd.DataFrame) -> None:
    """The checks build_qaps makes before its first entry: required columns, ids neither null nor repeated."""
    check_frame(tables, REQUIRED_TABLE_COLUMNS, "table_id", "tables")
    check_frame(questions, REQUIRED_QUESTION_COLUMNS, "question_id", "questions")


QAPS_QUESTION_COLUMNS = ("question_id", "table_id", "question", "answer_gt", *RELEASE_QUESTION_PROPERTY_COLUMNS.values())


def qaps_table_columns(columns) -> tuple[str, ...]:
    """The columns of benchmark_tables a qaps entry reads (`columns`: those the frame has)."""
    return ("table_id", "csv", "html", "markdown", *RELEASE_TABLE_PROPERTY_COLUMNS.values(),
            *(c for c in ("release_csv", *EXTRA_TABLE_INFO_KEYS) if c in columns))


def qaps_entry(t: dict[str, Any], questions: list[dict[str, Any]]) -> dict[str, Any]:
    """One table's entry: `t` its row (qaps_table_columns), `questions` its entries (question_entry)."""
    tid = str(t["table_id"])
    table_properties = {
        name: bool(as_bool(t[column], f"tables: {tid}: {column}"))
        for name, column in RELEASE_TABLE_PROPERTY_COLUMNS.items()
    }
    info: dict[str, Any] = {
        "table_csv_path": None,
        "table_image_url": None,
        "table_image_local_path": None,
        "table_properties": table_properties,
        "table_formats": {
            # a real table's own CSV (its merge markers keep the spans), else our flattened grid
            "csv": release_csv(as_text(t.get("release_csv")) or as_text(t["csv"])),
            "html": as_text(t["html"]),
            "md": as_text(t["markdown"]),
        },
    }
    for key in EXTRA_TABLE_INFO_KEYS:
        if key in t:
            info[key] = as_text(t[key])
    return {"table_id": tid, "table_info": info, "questions": questions}


def question_entry(q: dict[str, Any]) -> dict[str, Any]:
    return _question_entry(q)


def build_qaps(tables: pd.DataFrame, questions: pd.DataFrame) -> list[dict[str, Any]]:
    """The release's `qaps` structure: a list of tables ordered by table_id, questions by question_id.

    Table properties are booleans under the release's names (all 22 plus "Row Nesting"); question
    properties are booleans, except the six numeric ones, written as the release writes them:
    strings (`"2"`), an absent number as `""`.
    """
    check_qaps_frames(tables, questions)
    tables = sorted_by_id(tables, "table_id")
    questions = sorted_by_id(questions, "question_id")

    by_table: dict[str, list[dict[str, Any]]] = {str(t): [] for t in tables["table_id"]}
    for q in _records(questions, QAPS_QUESTION_COLUMNS):
        tid = str(q["table_id"])
        if tid not in by_table:
            raise ValueError(f"questions: {q['question_id']}: table_id {tid!r} is not in tables")
        by_table[tid].append(_question_entry(q))
    return [qaps_entry(t, by_table[str(t["table_id"])])
            for t in _records(tables, qaps_table_columns(tables.columns))]


def _records(frame: pd.DataFrame, columns) -> list[dict[str, Any]]:
    """The frame's rows as dicts of the named columns (`to_dict("records")` boxes every cell of every column)."""
    columns = list(dict.fromkeys(columns))
    return [dict(zip(columns, row)) for row in zip(*(frame[c].tolist() for c in columns))]


def qaps_bytes(qaps: Any) -> bytes:
    """The qaps structure as one line of UTF-8 JSON (what the export writes, `generator_py.exports.benchmark_exports`)."""
    return (qaps_json(qaps) + "\n").encode("utf-8")


def qaps_json(entries: list) -> str:
    """Entries as a JSON list, written so that lists written a part at a time and joined by QAPS_SEPARATOR
    inside one pair of brackets give the same text as the whole list."""
    # compact: json's C encoder only runs without indentation (about ten times faster)
    return json.dumps(entries, ensure_ascii=False, allow_nan=False)


QAPS_SEPARATOR = ", "  # json.dumps' separator between list members
