"""Import the real-world part of the public HCT-QA release (`realWorld_HCT_qaps.json`).

`load_release(path)` returns the tables frame and the questions frame in the column layout of the
`benchmark_tables` / `benchmark_questions` marts (docs/contracts.md), for `source = 'real'`.
The file is read by `generator_py.release.qaps_read`; the release gives each table as CSV only (kept
as given in `release_csv`): it is read into the cell grid (`generator_py.grid.release_csv`) and every
text rendering (`html`, `csv`, `markdown`) comes from the one renderer of its format
(`generator_py.render`), as for synthetic tables.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

import pandas as pd

from generator_py.release.gt import gt_rows
from generator_py.release.properties import (
    NUMERIC_QUESTION_PROPERTY_COLUMNS,
    QUESTION_PROPERTY_COLUMNS,
    TABLE_PROPERTY_COLUMNS,
)
from generator_py.grid.release_csv import grid_from_release_csv
from generator_py.release.qaps_read import read_qaps, resolve_release_file
from generator_py.render.registry import format_names, render

TABLE_COLUMNS: tuple[str, ...] = (
    "table_id", "source", "dataset", "template_name", "variant_id", "replica", "title",
) + format_names(text_only=True) + (
    "relational_csv", "n_rows", "n_columns", "n_cells", "column_header_depth", "row_header_depth",
) + TABLE_PROPERTY_COLUMNS + ("release_csv",)

QUESTION_COLUMNS: tuple[str, ...] = (
    "question_id", "table_id", "source", "dataset", "template_id", "phrasing", "question", "sql", "answer_gt",
    "answer_rows", "answer_n_rows", "answer_n_values", "creation_type",
) + QUESTION_PROPERTY_COLUMNS

# how the release made a question: the first letter of its id's last segment (psa--1--102--A0)
_CREATION_MARKS = {"M": "manual", "A": "model_generated"}


def _dataset(table_id: str) -> str:
    return table_id.split("--", 1)[0]


def creation_type(question_id: str) -> str | None:
    """`manual` (written by a person) or `model_generated` (made by a model, checked by a person): the
    release marks them with `M` and `A` at the start of the id's last segment; None for an id marked neither."""
    if "--" not in question_id:
        return None
    return _CREATION_MARKS.get(question_id.rsplit("--", 1)[1][:1])


# Releases read in this process, by (file, size, modification time, renderings): the build checks the
# release up front (stg_build_config) and the staging models reuse that one full read.
_READ: dict[tuple, tuple[pd.DataFrame, pd.DataFrame]] = {}


def load_release(path: Union[str, Path], renderings: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`read_release` once per process while the file is unchanged (copies, so a caller may change them)."""
    file = resolve_release_file(path)
    stat = file.stat()
    key = (str(file.resolve()), stat.st_size, stat.st_mtime_ns, renderings)
    if key not in _READ:
        _READ[key] = read_release(path, renderings)
    tables, questions = _READ[key]
    return tables.copy(), questions.copy()


def read_release(path: Union[str, Path], renderings: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read the release's real-world `qaps` JSON -> (tables frame, questions frame).

    `renderings=False` leaves the text renderings out (NULL): the build renders every table's grid
    once, in int_table_renderings.

    Raises FileNotFoundError when `path` does not exist (or a folder lacks the file), ValueError
    (naming the file and the offending table / question) for malformed content.
    """
    table_rows: list[dict[str, Any]] = []
    question_rows: list[dict[str, Any]] = []
    for table in read_qaps(path):
        grid = grid_from_release_csv(table.csv)
        if not grid.cells:
            raise ValueError(f"{path}: table {table.table_id}: table_info.table_formats.csv holds no cells "
                             "(only the index row)")
        dataset = _dataset(table.table_id)
        row: dict[str, Any] = {
            "table_id": table.table_id,
            "source": "real",
            "dataset": dataset,
            "template_name": None,
            "variant_id": None,
            "replica": None,
            "title": None,
            **({name: render(grid, name) for name in format_names(text_only=True)} if renderings else {}),
            "relational_csv": None,
            "n_rows": grid.n_rows,
            "n_columns": grid.n_columns,
            "n_cells": grid.n_rows * grid.n_columns,
            "column_header_depth": grid.header_rows,
            "row_header_depth": grid.header_columns,
            "release_csv": table.csv,
        }
        row.update(table.properties)
        table_rows.append(row)
        for q in table.questions:
            answer_rows = gt_rows(q.gt)
            qrow: dict[str, Any] = {
                "question_id": q.question_id,
                "table_id": table.table_id,
                "source": "real",
                "dataset": dataset,
                "template_id": None,
                "phrasing": None,
                "question": q.question,
                "sql": None,
                "answer_gt": q.gt,
                "answer_rows": json.dumps(answer_rows, ensure_ascii=False),
                "answer_n_rows": len(answer_rows),
                "answer_n_values": sum(len(r) for r in answer_rows),
                "creation_type": creation_type(q.question_id),
            }
            qrow.update(q.properties)
            question_rows.append(qrow)

    tables = pd.DataFrame(table_rows, columns=list(TABLE_COLUMNS))
    questions_df = pd.DataFrame(question_rows, columns=list(QUESTION_COLUMNS))
    for column in TABLE_PROPERTY_COLUMNS:
        tables[column] = tables[column].astype(bool)
    for column in ("n_rows", "n_columns", "n_cells", "column_header_depth", "row_header_depth"):
        tables[column] = tables[column].astype("int64")
    for column in QUESTION_PROPERTY_COLUMNS:
        if column in NUMERIC_QUESTION_PROPERTY_COLUMNS:
            questions_df[column] = questions_df[column].astype("Int64")
        else:
            questions_df[column] = questions_df[column].astype(bool)
    for column in ("answer_n_rows", "answer_n_values"):
        questions_df[column] = questions_df[column].astype("int64")
    return tables, questions_df

def _empty(columns: tuple[str, ...], bool_columns: tuple[str, ...], int_columns: tuple[str, ...]) -> pd.DataFrame:
    dtypes = {c: ("bool" if c in bool_columns else "Int64" if c in int_columns else "object") for c in columns}
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in dtypes.items()})


def load_release_or_empty(path_setting, renderings: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`load_release` for a configured path (a dbt var rendered as text); empty frames when it is unset."""
    text = None if path_setting is None else str(path_setting).strip()
    if text and text not in ("None", "null"):
        return load_release(text, renderings)
    int_table = ("variant_id", "replica", "n_rows", "n_columns", "n_cells", "column_header_depth", "row_header_depth")
    int_question = ("template_id", "phrasing", "answer_n_rows", "answer_n_values") + tuple(NUMERIC_QUESTION_PROPERTY_COLUMNS)
    bool_question = tuple(c for c in QUESTION_PROPERTY_COLUMNS if c not in NUMERIC_QUESTION_PROPERTY_COLUMNS)
    return (_empty(TABLE_COLUMNS, TABLE_PROPERTY_COLUMNS, int_table),
            _empty(QUESTION_COLUMNS, bool_question, int_question))
