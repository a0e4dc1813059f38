"""Our benchmark in the layout of the release's `realWorld_HCT_qaps.json` (written as `hctqa_qaps.json`).

Tooling written for the release reads our benchmark unchanged: a list of tables ordered by
table_id, each with `table_info` (the release's keys, then ours) and its questions ordered by
question_id; properties under the release's names (`properties`), the answer as the `gt` string.
"""
from __future__ import annotations

import json
from json import encoder as json_encoder
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from generator_py.exports.mart_frame import as_bool, as_int, as_text, check_frame, sorted_by_id
from generator_py.exports.parquet import arrow_table
from generator_py.render.registry import format_names

from .properties import (
    NUMERIC_QUESTION_PROPERTIES,
    NUMERIC_QUESTION_PROPERTY_COLUMNS,
    QUESTION_PROPERTY_COLUMNS,
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
# how the exports type the question properties (`normalized_arrow`): int64 numbers, booleans the rest
QUESTION_INT_COLUMNS = frozenset(NUMERIC_QUESTION_PROPERTY_COLUMNS)
QUESTION_BOOL_COLUMNS = frozenset(QUESTION_PROPERTY_COLUMNS) - QUESTION_INT_COLUMNS


def release_number(value: Any, where: str = "value") -> str:
    """A numeric question property as the release writes it: `"1"`; an absent number as `""`."""
    number = as_int(value, where)
    return "" if number is None else str(number)


# (release name, column, numeric?) of every question property, in the release's order
_QUESTION_PROPERTIES = tuple((name, column, name in _NUMERIC_RELEASE)
                             for name, column in RELEASE_QUESTION_PROPERTY_COLUMNS.items())


def question_entry_texts(questions: pa.Table) -> list[str]:
    """The JSON text of each question's entry, in the rows' order: `{"question_id", "question", "gt",
    "question_properties"}`, written as `qaps_json` writes it. `questions`: the qaps question columns
    (QAPS_QUESTION_COLUMNS), the properties typed as the exports type them (`normalized_arrow`: booleans, int64).

    A boolean property without a value is `false`; a numeric one is its digits as a string, `""` without a value
    (the release's way). The properties of every row are written a column at a time, by Arrow, not a value at a
    time (36 per question)."""
    ids = questions["question_id"].to_pylist()
    texts = questions["question"].to_pylist()
    for qid, text in zip(ids, texts):
        if text is None:
            raise ValueError(f"questions: {qid}: missing question text")
    pieces: list = []
    for k, (release_name, column, numeric) in enumerate(_QUESTION_PROPERTIES):
        values = questions[column]
        if numeric:
            if not pa.types.is_int64(values.type):
                raise TypeError(f"questions.{column}: {values.type}, not int64: the column is not normalized")
            # "" without a value, else the number's digits in quotes
            said = pc.fill_null(pc.binary_join_element_wise('"', pc.cast(values, pa.string()), '"', ""), '""')
        else:
            if not pa.types.is_boolean(values.type):
                raise TypeError(f"questions.{column}: {values.type}, not bool: the column is not normalized")
            said = pc.if_else(pc.fill_null(values, False), "true", "false")
        pieces += [("{" if k == 0 else ", ") + _json_text(release_name) + ": ", said]
    properties = pc.binary_join_element_wise(*pieces, "}", "").to_pylist() if pieces else ["{}"] * len(ids)
    return [f'{{"question_id": {_json_text(str(qid))}, "question": {_json_text(_text(text))}, '
            f'"gt": {_json_text(_text(gt) or "")}, "question_properties": {props}}}'
            for qid, text, gt, props in zip(ids, texts, questions["answer_gt"].to_pylist(), properties)]


def _text(value: Any) -> str | None:
    return value if type(value) is str else as_text(value)


# a string as json.dumps(..., ensure_ascii=False) writes it
_json_text = json_encoder.encode_basestring


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
    """One table's entry: `t` its row (qaps_table_columns), `questions` its question entries."""
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


def qaps_entry_text(entry: dict[str, Any], question_texts: list[str]) -> str:
    """`qaps_json` of one table's entry (`qaps_entry` with no questions) holding the questions whose texts
    `question_entry_texts` wrote: the same text as the entry with those questions in it."""
    text = json.dumps(entry, ensure_ascii=False, allow_nan=False)
    if entry.get("questions") != [] or not text.endswith(_NO_QUESTIONS):
        raise ValueError(f"qaps entry of table {entry.get('table_id')!r}: give it without questions")
    return text[:-len(_NO_QUESTIONS)] + "[" + QAPS_SEPARATOR.join(question_texts) + "]}"


_NO_QUESTIONS = "[]}"  # how an entry without questions ends: "questions" is its last key


def build_qaps(tables: pd.DataFrame, questions: pd.DataFrame) -> list[dict[str, Any]]:
    """The release's `qaps` structure: a list of tables ordered by table_id, questions by question_id.

    Table properties are booleans under the release's names (all 22 plus "Row Nesting"); question
    properties are booleans, except the six numeric ones, written as the release writes them:
    strings (`"2"`), an absent number as `""`. The export (`hctqa_qaps.json`) writes this structure.
    """
    check_qaps_frames(tables, questions)
    tables = sorted_by_id(tables, "table_id")
    questions = sorted_by_id(questions, "question_id")
    rows = arrow_table(questions[list(dict.fromkeys(QAPS_QUESTION_COLUMNS))], QUESTION_BOOL_COLUMNS,
                       QUESTION_INT_COLUMNS, "questions")
    by_table: dict[str, list[dict[str, Any]]] = {str(t): [] for t in tables["table_id"]}
    for tid, qid, text in zip(rows["table_id"].to_pylist(), rows["question_id"].to_pylist(),
                              question_entry_texts(rows)):
        if str(tid) not in by_table:
            raise ValueError(f"questions: {qid}: table_id {str(tid)!r} is not in tables")
        by_table[str(tid)].append(json.loads(text))
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
