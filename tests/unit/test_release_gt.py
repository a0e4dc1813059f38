"""The `gt` string: written by Python and by SQL alike, read as rows and as the release's values."""
from __future__ import annotations

from pathlib import Path

import duckdb
import jinja2
import pytest

from generator_py.release.gt import drop_trailing_zeros, format_gt, gt_rows, gt_value_list, gt_values

MACRO = Path(__file__).resolve().parents[2] / "macros" / "release_gt.sql"


def sql_gt(rows: list[list]) -> str:
    """The macro `release_gt`, rendered as dbt renders it, run by DuckDB over `rows`."""
    expression = jinja2.Environment().from_string(MACRO.read_text() + "{{ release_gt('vals', 'n') }}").render()
    con = duckdb.connect()
    try:
        con.execute("create table answers (n integer, vals varchar[])")
        con.executemany("insert into answers values (?, ?)", [[i, row] for i, row in enumerate(rows)])
        return con.execute(f"select {expression.strip()} from answers").fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("rows, expected", [
    ([["Female", 40, 40], ["Male", 86, 86]], "{Female | 40 | 40} || {Male | 86 | 86}"),
    ([[12.5]], "{12.5}"),
    ([["a", None, 3.14159]], "{a | 3.14}"),  # NULL left out, numbers canonical
    ([[2.675]], "{2.68}"),  # ties half up
    ([[None]], "{}"),
])
def test_format_gt(rows, expected):
    assert format_gt(rows) == expected


@pytest.mark.parametrize("rows", [[["Female", "40", "40"], ["Male", "86", "86"]], [["a", None, "3.14"]], [["x"]],
                                  [[None], ["y", "2"]]])
def test_sql_macro_writes_what_python_writes(rows):
    assert sql_gt(rows) == format_gt(rows)


def test_rows_reading():
    assert gt_rows("{ Q1 | Q1 } || { 9170 | 9013 }") == [["Q1", "Q1"], ["9170", "9013"]]
    assert gt_rows("{118136}") == [["118136"]]
    assert gt_rows("Yes") == [["Yes"]]
    assert gt_rows("{-14597)") == [["-14597"]]  # the release's stray bracket
    assert gt_rows("{a} || [b}") == [["a"], ["b"]]
    assert gt_rows("{} || {x | }") == [["x"]]
    rows = [["Female", "40"], ["Male", "86.5"]]
    assert gt_rows(format_gt(rows)) == rows  # what is written reads back


def test_values_reading_is_the_release_rule():
    assert gt_value_list("{Female | 40.0} || {Male | 1,234}") == ["female", "40", "male", "1234"]
    assert gt_value_list("{Female | 40.0}", lower=False, drop_zeros=False) == ["Female", "40.0"]
    assert gt_value_list("{30.41 | 32.22} {69.59 | 67.78}") == ["30.41", "32.22 69.59", "67.78"]
    assert gt_value_list("{a | }") == ["a", ""]  # empty values kept
    assert gt_values("{a} || {a | b}") == frozenset({"a", "b"})
    assert drop_trailing_zeros("100.00% and 71.40") == "100% and 71.4"
