"""Ground truth: execute a question's SQL with DuckDB on a relational table and print the `gt` string.

`ground_truth(frame, sql, rounding=...)` is the public function; one of the HCT-QA release's relational
tables (`*_DB.csv`) loads as the frame its SQL expects with `generator_py.release.relational_csv`.
"""
from __future__ import annotations

import threading

import duckdb
import pandas as pd
import sqlglot
from sqlglot import exp

from ..core.formatting import check_rounding
from ..release.gt import format_gt

_local = threading.local()


def _connection() -> duckdb.DuckDBPyConnection:
    con = getattr(_local, "con", None)
    if con is None:
        con = duckdb.connect(":memory:")
        _local.con = con
    return con


def single_table_name(sql: str) -> str:
    """The one table a single SELECT reads (sub-queries included); ValueError otherwise."""
    try:
        statements = [s for s in sqlglot.parse(sql, read="duckdb") if s is not None]
    except sqlglot.errors.ParseError as e:
        raise ValueError(f"ground_truth: cannot parse SQL: {str(e).splitlines()[0]}") from None
    if len(statements) != 1:
        raise ValueError(f"ground_truth: expected exactly one SQL statement, got {len(statements)}")
    tree = statements[0]
    if not isinstance(tree, exp.Select):
        raise ValueError(f"ground_truth: expected a single SELECT, got {type(tree).__name__.upper()}")
    if tree.find(exp.With) is not None or tree.find(exp.Join) is not None:
        raise ValueError("ground_truth: expected a SELECT over exactly one table (no joins or CTEs)")
    names = {t.name for t in tree.find_all(exp.Table)}
    if len(names) != 1:
        raise ValueError(f"ground_truth: expected a SELECT over exactly one table, found {sorted(names) or 'none'}")
    return names.pop()


def prepare_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Attribute columns as text (NULL kept), Value as float."""
    out = {}
    for c in frame.columns:
        if c.lower() == "value":
            out[c] = pd.to_numeric(frame[c]).astype(float)
        else:
            col = frame[c].astype(object)
            out[c] = [None if (v is None or (isinstance(v, float) and v != v)) else str(v) for v in col]
    return pd.DataFrame(out, columns=list(frame.columns)).astype(
        {c: object for c in frame.columns if c.lower() != "value"})


def execute(frame: pd.DataFrame, sql: str) -> list[tuple]:
    """Rows of the SQL's result, run by DuckDB on `frame` registered under the SQL's table name."""
    name = single_table_name(sql)
    con = _connection()
    con.register(name, prepare_frame(frame))
    try:
        return con.execute(sql).fetchall()
    finally:
        con.unregister(name)


def ground_truth(frame: pd.DataFrame, sql: str, rounding: str = "half_up") -> str:
    """The `gt` string (release format, canonical numbers) of `sql` on `frame`.

    `rounding` says how a tie at the second decimal rounds: `"half_up"` (the project's rule, the
    default) or `"half_even"`, which is how the HCT-QA release rounds (its answers were computed in R)
    and reproduces its answers exactly.
    """
    check_rounding(rounding)
    return format_gt(execute(frame, sql), rounding)
