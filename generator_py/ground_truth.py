"""Ground truth: execute a question's SQL with DuckDB on a relational table and print the `gt` string.

`ground_truth(frame, sql, rounding=...)` is the public function; `read_release_csv(path)` loads one of
the HCT-QA release's relational tables (`*_DB.csv`) as the frame its SQL expects.
"""
from __future__ import annotations

import csv
import io
import math
import threading
from pathlib import Path

import duckdb
import pandas as pd
import sqlglot
from sqlglot import exp

from .formatting import check_rounding
from .release.gt import format_gt

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


def _is_number(text: str) -> bool:
    try:
        return not math.isnan(float(text))
    except ValueError:
        return False


def _is_header_line(fields: list[str]) -> bool:
    # A data row always has a number (its Value) or an empty cell; a header line has neither.
    return all(f.strip() and not _is_number(f) for f in fields)


def read_release_csv(path: str | Path) -> pd.DataFrame:
    """One of the release's `_DB.csv` relational tables as the frame its SQL expects.

    The file's first line names the columns. Header lines that follow it (a line with no empty cell
    and no number in any cell) are read as headers too: some release files repeat the header line,
    and some give display names first and the SQL names on the second line. The columns take the
    names of the last header line; when an earlier one differs, `frame.attrs["display_names"]` maps
    each column to its first-line name. Attribute columns are text (an empty cell is NULL), the
    `Value` column a float. Bad input raises ValueError naming the file and line.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text ({e.reason})") from None
    reader = csv.reader(io.StringIO(text))
    lines = [(reader.line_num, row) for row in reader if row]
    if not lines:
        raise ValueError(f"{path}: empty file, expected a header line and rows")
    headers = [lines[0][1]]
    for lineno, row in lines[1:]:
        if not _is_header_line(row):
            break
        if len(row) != len(headers[0]):
            raise ValueError(f"{path}:{lineno}: header line has {len(row)} columns, the first has {len(headers[0])}")
        headers.append(row)
    names = [n.strip() for n in headers[-1]]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: repeated column names in the header: {names}")
    value_cols = [n for n in names if n.lower() == "value"]
    if len(value_cols) != 1:
        raise ValueError(f"{path}: expected one 'Value' column in the header, got {names}")
    value_at = names.index(value_cols[0])
    columns: list[list] = [[] for _ in names]
    for lineno, row in lines[len(headers):]:
        if len(row) != len(names):
            raise ValueError(f"{path}:{lineno}: {len(row)} fields, the header has {len(names)}")
        for i, cell in enumerate(row):
            if i == value_at:
                if cell.strip() and not _is_number(cell):
                    raise ValueError(f"{path}:{lineno}: Value {cell!r} is not a number")
                columns[i].append(float(cell) if cell.strip() else math.nan)
            else:
                columns[i].append(cell if cell != "" else None)
    frame = pd.DataFrame({n: pd.Series(c, dtype="float64" if i == value_at else object)
                          for i, (n, c) in enumerate(zip(names, columns))})
    display = [n.strip() for n in headers[0]]
    if display != names:
        frame.attrs["display_names"] = dict(zip(names, display))
    return frame
