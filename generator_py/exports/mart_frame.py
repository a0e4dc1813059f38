"""The mart frames handed to the exports: checked, ordered by id, their cells read as bool / int / text.

Both exports (Parquet, the release's qaps JSON) read the marts through these functions, so a bad
value is refused the same way by both, with an error naming the frame, the row id and the column.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterable, Optional

import pandas as pd
import pyarrow as pa


def is_missing(value: Any) -> bool:
    """None, NaN, pd.NA, pd.NaT: a missing cell."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    try:
        return bool(pd.isna(value)) if not isinstance(value, (str, bytes, list, tuple, dict)) else False
    except (TypeError, ValueError):
        return False


def as_bool(value: Any, where: str) -> Optional[bool]:
    """Boolean (Python, numpy, pandas nullable) -> bool; missing -> None."""
    if value is True or value is False:  # the common case, checked first: this runs once per cell
        return value
    if is_missing(value):
        return None
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral) and int(value) in (0, 1):
        return bool(value)
    if isinstance(value, float) and value in (0.0, 1.0):
        return bool(value)
    raise ValueError(f"{where}: not a boolean: {value!r}")


def as_int(value: Any, where: str) -> Optional[int]:
    """Nullable integer (int, numpy int, float with NaN, pd.NA, None) -> int or None."""
    if type(value) is int:
        return value
    if is_missing(value):
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


def as_text(value: Any) -> Optional[str]:
    return None if is_missing(value) else str(value)


def check_frame(frame: pd.DataFrame, required: Iterable[str], id_column: str, name: str) -> None:
    """Required columns present, no repeated column names, ids neither null nor repeated (a frame or an Arrow table)."""
    check_columns(list(frame.column_names if isinstance(frame, pa.Table) else frame.columns), required, name)
    ids = pd.Series(frame[id_column].to_pylist(), dtype=object) if isinstance(frame, pa.Table) else frame[id_column]
    if ids.isna().any():
        raise ValueError(f"{name}: null {id_column}")
    dup = ids[ids.duplicated()]
    if len(dup):
        raise ValueError(f"{name}: duplicate {id_column} {sorted(map(str, dup.unique()))[:5]}")


def check_columns(columns: list, required: Iterable[str], name: str) -> None:
    """Required columns present, no repeated column names (`name` says whose columns in the error)."""
    columns = pd.Index(columns)
    missing = [c for c in required if c not in columns]
    if missing:
        raise ValueError(f"{name}: missing columns {missing}")
    if columns.duplicated().any():
        raise ValueError(f"{name}: duplicate column names {list(columns[columns.duplicated()])}")


def id_order(ids: list) -> list[int]:
    """Row numbers ordered by the ids' text (the exports' row order; stable)."""
    keys = [str(k) for k in ids]
    return sorted(range(len(keys)), key=keys.__getitem__)


def sorted_by_id(frame: pd.DataFrame, id_column: str) -> pd.DataFrame:
    """Rows ordered by the id's text (not by the frame's order or index): the exports' row order."""
    order = id_order(frame[id_column].tolist())
    if order == list(range(len(order))):
        return frame.reset_index(drop=True)
    return frame.iloc[order].reset_index(drop=True)
