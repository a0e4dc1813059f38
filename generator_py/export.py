"""Export the benchmark: two Parquet files and the HCT-QA release's `qaps` JSON layout.

`write_exports(out_dir, tables, questions)` writes, into `out_dir`:

- `benchmark_tables.parquet`, `benchmark_questions.parquet`: the two marts as given (all their
  columns, in their order), rows sorted by `table_id` / `question_id`, no pandas index, no pandas
  schema metadata, zstd, fixed row-group size. The bytes depend only on the input (and the
  pyarrow version, which the Parquet footer names), so writing twice gives identical files.
- `hctqa_qaps.json`: the layout of the release's `realWorld_HCT_qaps.json`, so that tooling
  written for the release reads our benchmark unchanged (see `build_qaps`).

Plain Python: no dbt imports.
"""
from __future__ import annotations

import csv
import io
import json
import math
import numbers
import os
from pathlib import Path
from typing import Any, Iterable, Optional, Union

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from generator_py.render.registry import format_names
from evaluation_py.properties import (
    NUMERIC_QUESTION_PROPERTIES,
    QUESTION_PROPERTIES,
    ROW_NESTING_RELEASE_NAME,
    TABLE_PROPERTIES,
    TABLE_PROPERTY_COLUMNS,
    release_name_to_column,
)

TABLES_PARQUET = "benchmark_tables.parquet"
QUESTIONS_PARQUET = "benchmark_questions.parquet"
QAPS_JSON = "hctqa_qaps.json"

PARQUET_ROW_GROUP_SIZE = 4096
PARQUET_COMPRESSION = "zstd"
PARQUET_COMPRESSION_LEVEL = 3

# Release table property names in the order the release writes them (the order of
# `realWorld_HCT_qaps.json`); "Row Nesting" is present on only some release tables there, we
# always write it (it is our `row_nesting` column).
RELEASE_TABLE_PROPERTY_ORDER: tuple[str, ...] = (
    "Standard Relational Table",
    "Multi Level Column",
    "Balanced Multi Level Column",
    "Symmetric Multi Level Column",
    "Unbalanced Multi Level Column",
    "Asymmetric Multi Level Column",
    "Column Aggregation",
    "Global Column Aggregation",
    "Local Column-Group Aggregation",
    "Explicit Column Aggregation Terms",
    "Implicit Column Aggregation Terms",
    ROW_NESTING_RELEASE_NAME,
    "Balanced Row Nesting",
    "Symmetric Row Nesting",
    "Unbalanced Row Nesting",
    "Asymmetric Row Nesting",
    "Row Aggregation",
    "Global Row Aggregation",
    "Local Row-Group Aggregation",
    "Explicit Row Aggregation Terms",
    "Implicit Row Aggregation Terms",
    "Split Header Cell",
    "Row Group Label",
)

# Release table property name -> our column, in release order.
RELEASE_TABLE_PROPERTY_COLUMNS: dict[str, str] = {
    name: (
        "row_nesting" if name == ROW_NESTING_RELEASE_NAME else TABLE_PROPERTIES[name]
    )
    for name in RELEASE_TABLE_PROPERTY_ORDER
}
if set(RELEASE_TABLE_PROPERTY_ORDER) != set(TABLE_PROPERTIES) | {ROW_NESTING_RELEASE_NAME} or set(
    RELEASE_TABLE_PROPERTY_COLUMNS.values()
) != set(TABLE_PROPERTY_COLUMNS):  # pragma: no cover - guards against drift of the properties module
    raise ImportError("generator_py.export: release table property names out of step with evaluation_py.properties")

# Release question property name -> our column, in release order (QUESTION_PROPERTIES is in it).
RELEASE_QUESTION_PROPERTY_COLUMNS: dict[str, str] = {n: release_name_to_column(n) for n in QUESTION_PROPERTIES}
_NUMERIC_RELEASE = frozenset(NUMERIC_QUESTION_PROPERTIES)
_NUMERIC_COLUMNS = frozenset(release_name_to_column(n) for n in NUMERIC_QUESTION_PROPERTIES)
_BOOL_QUESTION_COLUMNS = frozenset(
    c for n, c in RELEASE_QUESTION_PROPERTY_COLUMNS.items() if n not in _NUMERIC_RELEASE
)

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


# --------------------------------------------------------------------------- value helpers


def _is_missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    try:
        return bool(pd.isna(value)) if not isinstance(value, (str, bytes, list, tuple, dict)) else False
    except (TypeError, ValueError):
        return False


def _as_bool(value: Any, where: str) -> Optional[bool]:
    """Boolean (Python, numpy, pandas nullable) -> bool; missing -> None."""
    if value is True or value is False:  # the common case, checked first: this runs once per cell
        return value
    if _is_missing(value):
        return None
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral) and int(value) in (0, 1):
        return bool(value)
    if isinstance(value, float) and value in (0.0, 1.0):
        return bool(value)
    raise ValueError(f"{where}: not a boolean: {value!r}")


def _as_int(value: Any, where: str) -> Optional[int]:
    """Nullable integer (int, numpy int, float with NaN, pd.NA, None) -> int or None."""
    if type(value) is int:
        return value
    if _is_missing(value):
        return None
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        if not value:  # the release writes an absent number as `false` sometimes
            return None
        raise ValueError(f"{where}: not a number: {value!r}")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        f = float(value)
        if f.is_integer():
            return int(f)
        raise ValueError(f"{where}: not an integer: {value!r}")
    if isinstance(value, str):
        text = value.strip()
        if text == "":
            return None
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{where}: not a number: {value!r}") from None
    raise ValueError(f"{where}: not a number: {value!r}")


def release_number(value: Any, where: str = "value") -> str:
    """A numeric question property as the release writes it: `"1"`; an absent number as `""`."""
    number = _as_int(value, where)
    return "" if number is None else str(number)


def _text(value: Any) -> Optional[str]:
    return None if _is_missing(value) else str(value)


# --------------------------------------------------------------------------- release CSV


def _is_release_csv(rows: list[list[str]]) -> bool:
    """True when the grid already carries the release's index row (`,0,1,..`) and index column."""
    if len(rows) < 2 or not rows[0] or rows[0][0] != "":
        return False
    if rows[0][1:] != [str(i) for i in range(len(rows[0]) - 1)]:
        return False
    return all(r and r[0] == str(i) for i, r in enumerate(rows[1:]))


def release_csv(csv_text: Optional[str]) -> Optional[str]:
    """Table CSV -> the release's CSV layout (first row `,0,1,...`, first column row indexes).

    The release's tooling (and `evaluation_py.real_import`) drops that first row and column, so
    a plain grid (our synthetic `csv`) gets them added; a CSV that already has them (a table
    imported from the release) is returned unchanged.
    """
    if csv_text is None:
        return None
    rows = list(csv.reader(io.StringIO(csv_text)))
    while rows and not any(c.strip() for c in rows[-1]):
        rows.pop()
    if not rows or _is_release_csv(rows):
        return csv_text
    width = max(len(r) for r in rows)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([""] + [str(i) for i in range(width)])
    for i, row in enumerate(rows):
        writer.writerow([str(i)] + row + [""] * (width - len(row)))
    return out.getvalue()


# --------------------------------------------------------------------------- checks


def _check(frame: pd.DataFrame, required: Iterable[str], id_column: str, name: str) -> None:
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(f"{name}: missing columns {missing}")
    if frame.columns.duplicated().any():
        raise ValueError(f"{name}: duplicate column names {list(frame.columns[frame.columns.duplicated()])}")
    ids = frame[id_column]
    if ids.isna().any():
        raise ValueError(f"{name}: null {id_column}")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise ValueError(f"{name}: duplicate {id_column} {sorted(map(str, dup.unique()))[:5]}")


def _sorted(frame: pd.DataFrame, id_column: str) -> pd.DataFrame:
    keys = frame[id_column].map(str)
    order = sorted(range(len(frame)), key=lambda i: keys.iat[i])
    return frame.iloc[order].reset_index(drop=True)


# --------------------------------------------------------------------------- parquet


def _arrow_table(frame: pd.DataFrame, bool_columns: frozenset, int_columns: frozenset, name: str) -> pa.Table:
    arrays = []
    for column in frame.columns:
        series = frame[column]
        where = f"{name}.{column}"
        if column in bool_columns:
            if series.dtype == bool:  # no missing values, nothing to check
                arrays.append(pa.array(series.to_numpy(), type=pa.bool_()))
            else:
                arrays.append(pa.array([_as_bool(v, where) for v in series], type=pa.bool_()))
        elif column in int_columns:
            if pd.api.types.is_integer_dtype(series.dtype):
                arrays.append(pa.array(series, type=pa.int64(), from_pandas=True))
            else:
                arrays.append(pa.array([_as_int(v, where) for v in series], type=pa.int64()))
        else:
            array = pa.Array.from_pandas(series)
            # pandas' `str` / `string` dtypes give large_string, object columns give string: one
            # type for both, so the bytes do not depend on how the frame stored its text.
            if pa.types.is_large_string(array.type):
                array = array.cast(pa.string())
            arrays.append(array)
    # Built from arrays: no pandas metadata (which names library versions) in the schema.
    return pa.Table.from_arrays(arrays, names=[str(c) for c in frame.columns])


def _write_parquet(table: pa.Table, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    pq.write_table(
        table,
        tmp,
        row_group_size=PARQUET_ROW_GROUP_SIZE,
        compression=PARQUET_COMPRESSION,
        compression_level=PARQUET_COMPRESSION_LEVEL,
        write_statistics=True,
    )
    os.replace(tmp, path)


# --------------------------------------------------------------------------- qaps JSON


def build_qaps(tables: pd.DataFrame, questions: pd.DataFrame) -> list[dict[str, Any]]:
    """The release's `qaps` structure: a list of tables ordered by table_id, questions by question_id.

    Table properties are booleans under the release's names (all 22 plus "Row Nesting"); question
    properties are booleans, except the six numeric ones, written as the release writes them:
    strings (`"2"`), an absent number as `""`.
    """
    _check(tables, REQUIRED_TABLE_COLUMNS, "table_id", "tables")
    _check(questions, REQUIRED_QUESTION_COLUMNS, "question_id", "questions")
    tables = _sorted(tables, "table_id")
    questions = _sorted(questions, "question_id")

    by_table: dict[str, list[dict[str, Any]]] = {str(t): [] for t in tables["table_id"]}
    for q in questions.to_dict("records"):
        qid = str(q["question_id"])
        tid = str(q["table_id"])
        if tid not in by_table:
            raise ValueError(f"questions: {qid}: table_id {tid!r} is not in tables")
        question_text = _text(q["question"])
        if question_text is None:
            raise ValueError(f"questions: {qid}: missing question text")
        props: dict[str, Any] = {}
        for release_name, column in RELEASE_QUESTION_PROPERTY_COLUMNS.items():
            where = f"questions: {qid}: {column}"
            if release_name in _NUMERIC_RELEASE:
                props[release_name] = release_number(q[column], where)
            else:
                props[release_name] = bool(_as_bool(q[column], where))
        by_table[tid].append(
            {
                "question_id": qid,
                "question": question_text,
                "gt": _text(q["answer_gt"]) or "",
                "question_properties": props,
            }
        )

    out: list[dict[str, Any]] = []
    has = {c: c in tables.columns for c in EXTRA_TABLE_INFO_KEYS}
    for t in tables.to_dict("records"):
        tid = str(t["table_id"])
        table_properties = {
            name: bool(_as_bool(t[column], f"tables: {tid}: {column}"))
            for name, column in RELEASE_TABLE_PROPERTY_COLUMNS.items()
        }
        info: dict[str, Any] = {
            "table_csv_path": None,
            "table_image_url": None,
            "table_image_local_path": None,
            "table_properties": table_properties,
            "table_formats": {
                "csv": release_csv(_text(t["csv"])),
                "html": _text(t["html"]),
                "md": _text(t["markdown"]),
            },
        }
        for key in EXTRA_TABLE_INFO_KEYS:
            if has[key]:
                info[key] = _text(t[key])
        out.append({"table_id": tid, "table_info": info, "questions": by_table[tid]})
    return out


def _write_json(data: Any, path: Path) -> None:
    # compact: json's C encoder only runs without indentation (about ten times faster)
    text = json.dumps(data, ensure_ascii=False, allow_nan=False) + "\n"
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    os.replace(tmp, path)


# --------------------------------------------------------------------------- entry point


def write_exports(out_dir: Union[str, Path], tables: pd.DataFrame, questions: pd.DataFrame) -> list[Path]:
    """Write the two Parquet files and `hctqa_qaps.json` into `out_dir` (created if needed).

    Returns the paths written: [tables parquet, questions parquet, qaps JSON]. Raises ValueError
    for missing columns, duplicate / null ids, questions of unknown tables, or property values
    that are not booleans / integers.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    qaps = build_qaps(tables, questions)  # validates both frames first

    tables_sorted = _sorted(tables, "table_id")
    questions_sorted = _sorted(questions, "question_id")
    tables_arrow = _arrow_table(tables_sorted, frozenset(TABLE_PROPERTY_COLUMNS), frozenset(), "tables")
    questions_arrow = _arrow_table(questions_sorted, _BOOL_QUESTION_COLUMNS, _NUMERIC_COLUMNS, "questions")

    paths = [out / TABLES_PARQUET, out / QUESTIONS_PARQUET, out / QAPS_JSON]
    _write_parquet(tables_arrow, paths[0])
    _write_parquet(questions_arrow, paths[1])
    _write_json(qaps, paths[2])
    return paths
