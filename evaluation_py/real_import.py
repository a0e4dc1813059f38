"""Import the real-world part of the public HCT-QA release (`realWorld_HCT_qaps.json`).

`load_release(path)` returns the tables frame and the questions frame in the column layout of the
`benchmark_tables` / `benchmark_questions` marts (docs/contracts.md), for `source = 'real'`.
The release gives each table as CSV only (kept as given in `release_csv`); it is read into the cell
grid (`generator_py.grid.release_csv`) and every text rendering (`html`, `csv`, `markdown`) comes from
the one renderer of its format (`generator_py.render`), as for synthetic tables.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Union

import pandas as pd

from evaluation_py.properties import (
    NUMERIC_QUESTION_PROPERTY_COLUMNS,
    QUESTION_PROPERTY_COLUMNS,
    TABLE_PROPERTY_COLUMNS,
    question_properties_from_release,
    table_properties_from_release,
)
from generator_py.grid.release_csv import grid_from_release_csv
from generator_py.render.registry import format_names, render

RELEASE_FILE_NAMES = ("realWorld_HCT_qaps.json", "realWorld_HCT_qaps.json.gz", "realWorld_HCT_qaps.sample.json")

TABLE_COLUMNS: tuple[str, ...] = (
    "table_id", "source", "dataset", "template_name", "variant_id", "replica", "title",
) + format_names(text_only=True) + (
    "relational_csv", "n_rows", "n_columns", "n_cells", "column_header_depth", "row_header_depth",
) + TABLE_PROPERTY_COLUMNS + ("release_csv",)

QUESTION_COLUMNS: tuple[str, ...] = (
    "question_id", "table_id", "source", "dataset", "template_id", "phrasing", "question", "sql", "answer_gt",
    "answer_rows", "answer_n_rows", "answer_n_values",
) + QUESTION_PROPERTY_COLUMNS


def resolve_release_file(path: Union[str, Path]) -> Path:
    """A folder holding the release file (plain or gzipped), or the file itself."""
    p = Path(path)
    if p.is_dir():
        for name in RELEASE_FILE_NAMES:
            if (p / name).is_file():
                return p / name
        raise FileNotFoundError(f"no {' / '.join(RELEASE_FILE_NAMES)} in {p}")
    if p.is_file():
        return p
    raise FileNotFoundError(f"release file or folder not found: {p}")


def _read_json(file: Path) -> Any:
    try:
        if file.name.endswith(".gz"):
            with gzip.open(file, "rt", encoding="utf-8") as fh:
                return json.load(fh)
        with open(file, encoding="utf-8") as fh:
            return json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError, OSError, EOFError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(f"{file}: not a JSON file ({exc})") from exc


def parse_gt_rows(gt: str) -> list[list[str]]:
    """`{a | b} || {c | d}` -> [["a", "b"], ["c", "d"]]; a gt without braces (`Yes`) is one value.

    Rows are split on `||`, values on `|`; surrounding braces (and a stray `[` / `)` the release
    sometimes has instead) are removed and values trimmed; empty values and rows are dropped.
    """
    rows: list[list[str]] = []
    for part in str(gt).split("||"):
        text = part.strip()
        if text[:1] in "{[":
            text = text[1:]
            if text[-1:] in "}]":
                text = text[:-1]
            elif text[-1:] == ")" and "(" not in text:
                text = text[:-1]
        elif text[-1:] == "}":
            text = text[:-1]
        values = [v.strip() for v in text.split("|")]
        values = [v for v in values if v]
        if values:
            rows.append(values)
    return rows


def _dataset(table_id: str) -> str:
    return table_id.split("--", 1)[0]


def load_release(path: Union[str, Path]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read the release's real-world `qaps` JSON -> (tables frame, questions frame).

    Raises FileNotFoundError when `path` does not exist (or a folder lacks the file), ValueError
    (naming the file and the offending table / question) for malformed content.
    """
    file = resolve_release_file(path)
    data = _read_json(file)
    if not isinstance(data, list):
        raise ValueError(f"{file}: expected a JSON list of tables, got {type(data).__name__}")

    table_rows: list[dict[str, Any]] = []
    question_rows: list[dict[str, Any]] = []
    seen_tables: set[str] = set()
    for t_index, table in enumerate(data):
        where = f"{file}: table #{t_index}"
        if not isinstance(table, dict):
            raise ValueError(f"{where}: expected an object, got {type(table).__name__}")
        for key in ("table_id", "table_info", "questions"):
            if key not in table:
                tid = table.get("table_id")
                raise ValueError(f"{where}{f' ({tid})' if tid else ''}: missing {key!r}")
        table_id = str(table["table_id"])
        where = f"{file}: table {table_id} (#{t_index})"
        if table_id in seen_tables:
            raise ValueError(f"{where}: duplicate table_id")
        seen_tables.add(table_id)
        info = table["table_info"]
        if not isinstance(info, dict):
            raise ValueError(f"{where}: table_info is not an object")
        csv_text = (info.get("table_formats") or {}).get("csv")
        if not isinstance(csv_text, str) or not csv_text.strip():
            raise ValueError(f"{where}: missing table_info.table_formats.csv")
        props = info.get("table_properties")
        if not isinstance(props, dict):
            raise ValueError(f"{where}: missing table_info.table_properties")
        try:
            table_props = table_properties_from_release(props)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from exc
        grid = grid_from_release_csv(csv_text)
        if not grid.cells:
            raise ValueError(f"{where}: table_info.table_formats.csv holds no cells (only the index row)")
        dataset = _dataset(table_id)
        row: dict[str, Any] = {
            "table_id": table_id,
            "source": "real",
            "dataset": dataset,
            "template_name": None,
            "variant_id": None,
            "replica": None,
            "title": None,
            **{name: render(grid, name) for name in format_names(text_only=True)},
            "relational_csv": None,
            "n_rows": grid.n_rows,
            "n_columns": grid.n_columns,
            "n_cells": grid.n_rows * grid.n_columns,
            "column_header_depth": grid.header_rows,
            "row_header_depth": grid.header_columns,
            "release_csv": csv_text,
        }
        row.update(table_props)
        table_rows.append(row)

        questions = table["questions"]
        if not isinstance(questions, list):
            raise ValueError(f"{where}: questions is not a list")
        for q_index, q in enumerate(questions):
            q_where = f"{where}: question #{q_index}"
            if not isinstance(q, dict):
                raise ValueError(f"{q_where}: expected an object")
            for key in ("question_id", "question", "gt"):
                if key not in q:
                    raise ValueError(f"{q_where}: missing {key!r}")
            q_where = f"{where}: question {q['question_id']} (#{q_index})"
            try:
                q_props = question_properties_from_release(q.get("question_properties") or {})
            except ValueError as exc:
                raise ValueError(f"{q_where}: {exc}") from exc
            gt = str(q["gt"])
            answer_rows = parse_gt_rows(gt)
            qrow: dict[str, Any] = {
                "question_id": str(q["question_id"]),
                "table_id": table_id,
                "source": "real",
                "dataset": dataset,
                "template_id": None,
                "phrasing": None,
                "question": str(q["question"]),
                "sql": None,
                "answer_gt": gt,
                "answer_rows": json.dumps(answer_rows, ensure_ascii=False),
                "answer_n_rows": len(answer_rows),
                "answer_n_values": sum(len(r) for r in answer_rows),
            }
            qrow.update(q_props)
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


def load_release_or_empty(path_setting) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`load_release` for a configured path (a dbt var rendered as text); empty frames when it is unset."""
    text = None if path_setting is None else str(path_setting).strip()
    if text and text not in ("None", "null"):
        return load_release(text)
    int_table = ("variant_id", "replica", "n_rows", "n_columns", "n_cells", "column_header_depth", "row_header_depth")
    int_question = ("template_id", "phrasing", "answer_n_rows", "answer_n_values") + tuple(NUMERIC_QUESTION_PROPERTY_COLUMNS)
    bool_question = tuple(c for c in QUESTION_PROPERTY_COLUMNS if c not in NUMERIC_QUESTION_PROPERTY_COLUMNS)
    return (_empty(TABLE_COLUMNS, TABLE_PROPERTY_COLUMNS, int_table),
            _empty(QUESTION_COLUMNS, bool_question, int_question))
