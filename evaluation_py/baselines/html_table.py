"""An HTML table as a full grid of positions, with the header paths of its value cells.

The HTML is read by `generator_py.grid.html_parse` (the one HTML reader); this module expands it to
every position and derives the row and column header paths the header_match baseline needs. Works
on the project's HTML (thead of spanning `<th>`, row headers as `<th>` with rowspans or an indented
outline; synthetic and real tables alike, rendered from the cell grid) and on the HCT-QA release's
synthetic HTML (no thead: the leading rows made of `<th>` only are the column header rows).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

from generator_py.grid.cells import normalize_text
from generator_py.grid.html_parse import PlacedCell, header_row_count, place_cells, read_html_table

__all__ = ["GridCell", "ValueCell", "ParsedTable", "parse_html_table", "normalize_text", "is_aggregate_label"]

AGGREGATE_TERMS = frozenset(
    {"total", "totals", "subtotal", "sum", "average", "avg", "mean", "min", "minimum", "max", "maximum", "median", "overall"}
)
AGGREGATE_CLASSES = frozenset({"agg", "aggregate", "total", "subtotal"})


@lru_cache(maxsize=1 << 14)
def is_aggregate_label(label: str) -> bool:
    """A label naming an aggregation: its first or last word is Total, Sum, Average, Mean, Min, Max, ..."""
    words = _WORD_RE.findall(label.lower())
    return bool(words) and (words[0] in AGGREGATE_TERMS or words[-1] in AGGREGATE_TERMS)


_WORD_RE = re.compile(r"[a-z0-9]+")


@dataclass
class GridCell:
    """One position of the expanded grid. `anchor` is the (row, col) of the HTML cell covering it."""

    row: int
    col: int
    text: str
    is_header: bool
    classes: tuple[str, ...]
    anchor: tuple[int, int]
    rowspan: int = 1
    colspan: int = 1
    padding: bool = False  # True for positions no HTML cell covers (ragged rows)

    @property
    def is_anchor(self) -> bool:
        return self.anchor == (self.row, self.col)


@dataclass
class ValueCell:
    """A non-header cell of a body row (one per HTML cell, at its anchor) with its header paths."""

    row: int
    col: int
    text: str
    classes: tuple[str, ...]
    row_path: tuple[str, ...]
    column_path: tuple[str, ...]
    is_aggregate: bool  # marked by a class (agg, total, ...) or an aggregation label on a path
    aggregate_by_class: bool = False


@dataclass
class ParsedTable:
    caption: Optional[str]
    grid: list[list[GridCell]]
    header_rows: list[int]
    value_cells: list[ValueCell] = field(default_factory=list)
    group_label_rows: list[int] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return len(self.grid)

    @property
    def n_columns(self) -> int:
        return len(self.grid[0]) if self.grid else 0

    def texts(self) -> list[list[str]]:
        """The grid as text, spanned positions repeating their anchor's text."""
        return [[c.text for c in row] for row in self.grid]

    def row_labels(self) -> set[str]:
        return {label for v in self.value_cells for label in v.row_path}

    def column_labels(self) -> set[str]:
        return {label for v in self.value_cells for label in v.column_path}


# ----------------------------------------------------------------------------- grid


def _expand(n_rows: int, placed: list[PlacedCell]) -> list[list[Optional[GridCell]]]:
    """Every position of the table, filled from the placed cells (the earlier cell wins an overlap)."""
    grid: list[list[Optional[GridCell]]] = [[] for _ in range(n_rows)]
    for p in placed:
        cell = p.cell
        for rr in range(p.row, min(p.row + cell.rowspan, n_rows)):
            target = grid[rr]
            for cc in range(p.col, p.col + cell.colspan):
                while len(target) <= cc:
                    target.append(None)
                if target[cc] is None:
                    target[cc] = GridCell(
                        row=rr, col=cc, text=cell.text, is_header=cell.is_header, classes=cell.classes,
                        anchor=(p.row, p.col), rowspan=cell.rowspan, colspan=cell.colspan,
                    )
    return grid


def _dedupe(labels: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for label in labels:
        if label and (not out or out[-1] != label):
            out.append(label)
    return tuple(out)


def parse_html_table(html_text: str) -> ParsedTable:
    """Parse the first `<table>` of `html_text` (nested tables are read as text of their cell).

    Raises ValueError when there is no table with at least one cell.
    """
    html_table = read_html_table(html_text)
    placed = place_cells(html_table.rows)
    raw_grid = _expand(len(html_table.rows), placed)
    n_cols = max(len(r) for r in raw_grid)
    grid: list[list[GridCell]] = []
    for r, line in enumerate(raw_grid):
        out_line = []
        for c in range(n_cols):
            cell = line[c] if c < len(line) else None
            if cell is None:
                cell = GridCell(row=r, col=c, text="", is_header=False, classes=(), anchor=(r, c), padding=True)
            out_line.append(cell)
        grid.append(out_line)
    table = ParsedTable(caption=html_table.caption, grid=grid,
                        header_rows=list(range(header_row_count(html_table.rows, placed))))
    _derive_paths(table)
    return table


def _derive_paths(table: ParsedTable) -> None:
    grid = table.grid
    header_set = set(table.header_rows)
    # Column paths per column.
    col_paths: list[tuple[str, ...]] = []
    for c in range(table.n_columns):
        col_paths.append(_dedupe([grid[r][c].text for r in table.header_rows]))

    # Outline stack entries: [level, labels, is_group_row, level of its first child row].
    # A group label row (labels, no values) heads the following rows until a group label at the
    # same or an outer level; when its first child is indented deeper, a row back at the group's
    # own level ends the group too. A value row heads only the rows indented deeper than it.
    stack: list[list] = []
    for r, line in enumerate(grid):
        if r in header_set:
            continue
        has_values = any((not cell.is_header) and cell.text and not cell.padding for cell in line)
        header_cells = [cell for cell in line if cell.is_header]
        own_labels = _dedupe([cell.text for cell in header_cells])
        level = next((cell.col for cell in header_cells if cell.text), None)
        if level is None:
            stack = [e for e in stack if e[2]]
        elif not has_values:
            stack = [e for e in stack if e[0] < level]
        else:
            stack = [
                e for e in stack
                if e[0] < level or (e[2] and e[0] == level and e[3] in (None, level))
            ]
        for e in stack:
            if e[2] and e[3] is None and level is not None:
                e[3] = level
        inherited_labels = [label for e in stack for label in e[1]]
        if level is not None and own_labels:
            stack.append([level, own_labels, not has_values, None])
        if not has_values:
            if own_labels:
                table.group_label_rows.append(r)
            continue
        left: list[str] = []  # the texts of the row's header cells left of the cell
        for c, cell in enumerate(line):
            if cell.is_header:
                left.append(cell.text)
                continue
            if cell.padding or not cell.text or not cell.is_anchor:
                continue
            row_path = _dedupe(inherited_labels + left)
            column_path = col_paths[c]
            by_class = any(
                cls.lower() in AGGREGATE_CLASSES or cls.lower().startswith("outline") for cls in cell.classes
            )
            by_label = any(is_aggregate_label(label) for label in row_path + column_path)
            table.value_cells.append(
                ValueCell(
                    row=r, col=c, text=cell.text, classes=cell.classes, row_path=row_path,
                    column_path=column_path, is_aggregate=by_class or by_label, aggregate_by_class=by_class,
                )
            )
