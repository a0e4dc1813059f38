"""The HCT-QA release's relational tables (`*_DB.csv`, the tables its SQL runs on) read as frames."""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pandas as pd


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
