"""The one reader of int_relational_rows: records in rel_row order, labels as text or None, float values."""
import numpy as np
import pandas as pd
import pytest

from generator_py.answers.sql_cross_check import table_frames
from generator_py.tables.relational import relational_rows


def rows() -> pd.DataFrame:
    return pd.DataFrame({
        "table_id": ["t1", "t2", "t1"],
        "rel_row": [2, 1, 1],
        "row_attributes": [np.array(["Country"]), np.array(["City"]), np.array(["Country"])],
        "col_attributes": [np.array(["Year", "Month"]), np.array([]), np.array(["Year", "Month"])],
        "row_labels": [np.array(["Qatar"]), np.array(["Doha"]), np.array(["Oman"])],
        "col_labels": [np.array(["2020", None]), np.array([], dtype=object), np.array(["2020", "May"])],
        "value": [3, 4.5, 1],
    })


def test_records_follow_rel_row_and_keep_nulls():
    t = relational_rows(rows())
    assert t["t1"].records == [("Oman", "2020", "May", 1.0), ("Qatar", "2020", None, 3.0)]
    assert t["t1"].names == ["Country", "Year", "Month"]
    assert t["t2"].records == [("Doha", 4.5)]
    assert all(isinstance(r[-1], float) for r in t["t1"].records)


def test_only_the_tables_asked_for_and_frames_from_the_same_reader():
    assert list(relational_rows(rows(), {"t2"})) == ["t2"]
    frame = table_frames(rows(), {"t1"})["t1"]
    assert list(frame.columns) == ["Country", "Year", "Month", "Value"]
    assert frame["Month"].iloc[0] == "May" and pd.isna(frame["Month"].iloc[1])  # SQLite loads it as NULL
    with pytest.raises(KeyError):
        relational_rows(rows().drop(columns="rel_row"))
