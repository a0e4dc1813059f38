"""The HCT-QA release's table CSV -> the cell grid.

The release gives each real-world table as CSV only: a first row of column indexes and a first
column of row indexes, and `__` in a cell merged with its neighbour (a spanning header in the
original image). `layout_release_grid` turns those markers into spans and guesses how many leading
rows are column headers and how many leading columns are row headers; `grid_from_release_csv` gives
the table's `TableGrid`, which every renderer reads.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from generator_py.grid.cells import Cell, TableGrid, normalize_text
from generator_py.release.table_csv import Grid, parse_release_csv

MERGE_MARKER = "__"

_NUMBER_RE = re.compile(r"^[-+−]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_NEUTRAL = {"", "-", "--", "—", "–", "..", "...", "…", "n/a", "na", "x", "*", MERGE_MARKER}


def looks_numeric(text: str) -> bool:
    """True when a cell reads as a number (thousands separators, %, signs and brackets allowed)."""
    t = text.strip().replace("\u2212", "-")
    t = re.sub(r"[,\s%$€£()+]", "", t)
    if t.endswith("'"):
        t = t[:-1]
    return bool(_NUMBER_RE.match(t))


def _is_neutral(text: str) -> bool:
    return text.strip().lower() in _NEUTRAL


@dataclass
class GridLayout:
    """Spans and header extents of a grid.

    `spans` maps an anchor (row, col) to (rowspan, colspan) for anchors spanning more than one
    cell; `covered` holds the positions covered by a span (not anchors); `header_rows` leading
    rows are column headers; `header_columns` leading columns are row headers.
    """

    n_rows: int
    n_columns: int
    header_rows: int = 1
    header_columns: int = 1
    spans: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    covered: set[tuple[int, int]] = field(default_factory=set)

    def span(self, r: int, c: int) -> tuple[int, int]:
        return self.spans.get((r, c), (1, 1))


def layout_release_grid(grid: Grid, merge_marker: str = MERGE_MARKER) -> GridLayout:
    """Resolve `__` merge markers into spans and guess the header rows and columns.

    A marker right of a first-column label of its own row joins that label (a row spanning group
    label). Otherwise a marker joins the block above when that block starts in the same column and every cell under
    its full width in this row is a marker too (a row-spanning header); otherwise it joins the
    block to its left when that block lies in this row only (a column-spanning header); otherwise
    the cell is left as an empty cell.

    Header rows: the first row; then each next row while a header block spans down into it, or
    the previous row has a column-spanning block over the value columns (not the full width) and
    the row is not all numbers. At least one row is left for the body.

    Header columns: the first column; then each next column whose body cells are all non-numeric
    labels (at least one non-empty), leaving at least one column for values.
    """
    n_rows = len(grid)
    n_cols = max((len(r) for r in grid), default=0)
    layout = GridLayout(n_rows=n_rows, n_columns=n_cols)
    if n_rows == 0 or n_cols == 0:
        layout.header_rows = 0
        layout.header_columns = 0
        return layout

    def cell(r: int, c: int) -> str:
        row = grid[r]
        return row[c] if c < len(row) else ""

    owner: list[list[Optional[tuple[int, int]]]] = [[None] * n_cols for _ in range(n_rows)]
    extent: dict[tuple[int, int], list[int]] = {}  # anchor -> [rowspan, colspan]
    for r in range(n_rows):
        for c in range(n_cols):
            if owner[r][c] is not None:
                continue
            if cell(r, c).strip() == merge_marker:
                left = owner[r][c - 1] if c > 0 else None
                left_ok = (
                    left is not None
                    and left[0] == r
                    and extent[left][0] == 1
                    and left[1] + extent[left][1] == c
                )
                # A row label in the first column followed by markers spans the row (a group label).
                if left_ok and left[1] == 0:
                    owner[r][c] = left
                    extent[left][1] += 1
                    continue
                # Up: the block above starts at this column and this row is all markers under it.
                if r > 0:
                    a = owner[r - 1][c]
                    if a is not None and a[1] == c:
                        rs, cs = extent[a]
                        if a[0] + rs == r and all(
                            c + k < n_cols and owner[r][c + k] is None and cell(r, c + k).strip() == merge_marker
                            for k in range(cs)
                        ):
                            for k in range(cs):
                                owner[r][c + k] = a
                            extent[a][0] += 1
                            continue
                # Left: the block to the left lies in this row only.
                if left_ok:
                    owner[r][c] = left
                    extent[left][1] += 1
                    continue
            owner[r][c] = (r, c)
            extent[(r, c)] = [1, 1]

    for (ar, ac), (rs, cs) in extent.items():
        if rs > 1 or cs > 1:
            layout.spans[(ar, ac)] = (rs, cs)
            for dr in range(rs):
                for dc in range(cs):
                    if dr or dc:
                        layout.covered.add((ar + dr, ac + dc))

    def anchor_text(r: int, c: int) -> str:
        a = owner[r][c]
        return cell(a[0], a[1]) if a == (r, c) else ""

    # Header rows.
    header_rows = 1
    while header_rows < n_rows - 1:
        r = header_rows
        spans_down = any(owner[r][c] is not None and owner[r][c][0] < r for c in range(n_cols))
        prev_group = False
        for (ar, ac), (rs, cs) in extent.items():
            if ar + rs == r and ar < r and cs > 1 and ac >= 1 and cs < n_cols:
                prev_group = True
                break
        texts = [anchor_text(r, c) for c in range(1, n_cols)]
        texts = [t for t in texts if not _is_neutral(t)]
        all_numbers = bool(texts) and all(looks_numeric(t) for t in texts)
        if spans_down or (prev_group and texts and not all_numbers):
            header_rows += 1
        else:
            break
    layout.header_rows = header_rows

    # Header columns.
    header_columns = 1
    while header_columns < n_cols - 1:
        c = header_columns
        texts = [anchor_text(r, c) for r in range(header_rows, n_rows)]
        texts = [t for t in texts if not _is_neutral(t)]
        if texts and not any(looks_numeric(t) for t in texts):
            header_columns += 1
        else:
            break
    layout.header_columns = header_columns
    return layout


def grid_from_release_csv(csv_text: str, caption: Optional[str] = None) -> TableGrid:
    """Release CSV text -> grid: one cell per anchor of `layout_release_grid`, text whitespace-normalized
    (an unjoined `__` marker reads as an empty cell). Roles: header rows give `column_header`
    (`corner` over the row header columns), header columns give `row_header`, the rest `data`.

    The row header columns are, as `html_parse.grid_from_html` reads them back, the leading
    positions every body row covers with a header cell, so the grid round-trips through HTML.
    """
    texts = parse_release_csv(csv_text)
    layout = layout_release_grid(texts)
    anchors = []
    for r, line in enumerate(texts):
        for c, raw in enumerate(line):
            if (r, c) in layout.covered:
                continue
            text = "" if raw.strip() == MERGE_MARKER else normalize_text(raw)
            rowspan, colspan = layout.span(r, c)
            anchors.append((r, c, rowspan, colspan, text))
    body_header = [[False] * layout.n_columns for _ in range(layout.n_rows)]
    for r, c, rowspan, colspan, _ in anchors:
        if r < layout.header_rows or c < layout.header_columns:  # a header cell, <th> in HTML
            for rr in range(r, r + rowspan):
                for cc in range(c, c + colspan):
                    body_header[rr][cc] = True
    header_columns = min(
        (next((k for k, flag in enumerate(line) if not flag), len(line)) for line in body_header[layout.header_rows:]),
        default=0)
    cells = []
    for r, c, rowspan, colspan, text in anchors:
        if r < layout.header_rows:
            role = "corner" if c < header_columns else "column_header"
        else:
            role = "row_header" if c < layout.header_columns else "data"
        cells.append(Cell(r + 1, c + 1, rowspan, colspan, role, text))
    return TableGrid(tuple(cells), header_rows=layout.header_rows, header_columns=header_columns, caption=caption)
