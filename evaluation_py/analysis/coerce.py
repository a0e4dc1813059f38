"""Reading booleans and numbers the way they arrive (numpy, pandas nullable dtypes from
DuckDB, release strings such as "1", "", "false") as plain numpy arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd

_TRUE = {"true", "t", "yes", "y"}


def to_number(s: pd.Series) -> np.ndarray:
    """Float array; null, '', False and unparsable values become NaN (True reads as 1)."""
    if s.dtype == bool:
        return s.to_numpy(dtype=float)
    if pd.api.types.is_bool_dtype(s.dtype) or pd.api.types.is_numeric_dtype(s.dtype):
        return s.astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    low = s.astype("string").str.strip().str.lower()
    num = pd.to_numeric(low, errors="coerce").astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    num[(low == "true").fillna(False).to_numpy(dtype=bool)] = 1.0
    return num


def to_flag(s: pd.Series) -> np.ndarray:
    """Boolean array: true for True / 'true' / 'yes' / a number > 0; null is false."""
    if s.dtype == bool:
        return s.to_numpy()
    if pd.api.types.is_bool_dtype(s.dtype):
        return s.fillna(False).to_numpy(dtype=bool)
    if pd.api.types.is_numeric_dtype(s.dtype):
        return np.nan_to_num(to_number(s), nan=0.0) > 0
    low = s.astype("string").str.strip().str.lower()
    word = low.isin(_TRUE).fillna(False).to_numpy(dtype=bool)
    num = pd.to_numeric(low, errors="coerce").astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    return word | (np.nan_to_num(num, nan=0.0) > 0)
