"""A table's CSV in the release's layout: a first row of column indexes (`,0,1,2,...`) and a first
column of row indexes around the grid of cell texts. Read by the import, written by the export."""
from __future__ import annotations

import csv
import io
from typing import Optional

Grid = list[list[str]]


def parse_release_csv(text: str) -> Grid:
    """Release CSV -> grid of strings.

    The release CSV has a first row of column indexes (`,0,1,2,...`) and a first column of row
    indexes; both are dropped. Rows are padded with "" to the widest row.
    """
    rows = list(csv.reader(io.StringIO(text)))
    while rows and not any(c.strip() for c in rows[-1]):
        rows.pop()
    if not rows:
        return []
    body = [list(r[1:]) for r in rows[1:]]
    width = max([len(rows[0]) - 1] + [len(r) for r in body]) if body else 0
    return [r + [""] * (width - len(r)) for r in body]


def _is_release_csv(rows: list[list[str]]) -> bool:
    """True when the grid already carries the release's index row (`,0,1,..`) and index column."""
    if len(rows) < 2 or not rows[0] or rows[0][0] != "":
        return False
    if rows[0][1:] != [str(i) for i in range(len(rows[0]) - 1)]:
        return False
    return all(r and r[0] == str(i) for i, r in enumerate(rows[1:]))


def release_csv(csv_text: Optional[str]) -> Optional[str]:
    """Table CSV -> the release's CSV layout (first row `,0,1,...`, first column row indexes).

    The release's tooling (and our import) drops that first row and column, so a plain grid (our
    synthetic `csv`) gets them added; a CSV that already has them (a table imported from the
    release) is returned unchanged.
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
