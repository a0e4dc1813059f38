"""The cell grid: every table, synthetic or real, as anchored cells.

A cell sits at its anchor (`grid_row`, `grid_col`, 1-based, as in `int_hct_cells`) and covers
`rowspan` x `colspan` positions; positions no cell covers are empty. Renderers (`generator_py.render`)
read only this shape, so one renderer gives the same bytes for the same grid whatever its source.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, NamedTuple, Optional

# Roles of int_hct_cells. Value roles render as <td>, the others as <th>.
VALUE_ROLES = frozenset({"data", "aggregate", "empty"})
HEADER_ROLES = frozenset({
    "column_header", "row_header", "row_group_label", "indent", "corner", "corner_split", "row_attribute_name",
})
ROLES = VALUE_ROLES | HEADER_ROLES


def normalize_text(text: str) -> str:
    """A cell's text on one line: whitespace (non-breaking spaces included) collapsed and trimmed."""
    return " ".join(text.replace("\xa0", " ").split())


class Cell(NamedTuple):
    """One anchored cell. `is_aggregate` marks aggregate values and the headers naming them.

    A named tuple, not a dataclass: a default-scale build makes about a million of them.
    """

    grid_row: int
    grid_col: int
    rowspan: int
    colspan: int
    role: str
    text: str
    is_aggregate: bool = False

    @property
    def is_header(self) -> bool:
        return self.role in HEADER_ROLES


@dataclass(frozen=True)
class TableGrid:
    """A table's cells (row-major) and its table-level settings.

    `header_rows` leading rows are column headers (HTML thead); `header_columns` leading columns
    are row headers; `caption` is NULL-able; `borders` asks for ruled cells.
    """

    cells: tuple[Cell, ...]
    header_rows: int
    header_columns: int
    caption: Optional[str] = None
    borders: bool = False
    n_rows: int = field(init=False)
    n_columns: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", tuple(sorted(self.cells)))  # row-major: (grid_row, grid_col) lead
        object.__setattr__(self, "n_rows", max((c.grid_row + c.rowspan - 1 for c in self.cells), default=0))
        object.__setattr__(self, "n_columns", max((c.grid_col + c.colspan - 1 for c in self.cells), default=0))

    @cached_property
    def _rows(self) -> list[list[Cell]]:
        out: list[list[Cell]] = [[] for _ in range(self.n_rows)]
        for c in self.cells:
            out[c.grid_row - 1].append(c)
        return out

    @cached_property
    def _texts(self) -> list[list[str]]:
        out = [[""] * self.n_columns for _ in range(self.n_rows)]
        for c in self.cells:
            out[c.grid_row - 1][c.grid_col - 1] = c.text
        return out

    def rows(self) -> list[list[Cell]]:
        """The anchored cells of each grid row, left to right (a row covered entirely by spans is empty)."""
        return [list(r) for r in self._rows]

    def texts(self) -> list[list[str]]:
        """The flattened grid: each anchor's text at its anchor, "" at covered and empty positions."""
        return [list(r) for r in self._texts]  # a copy: renderers share the cached one


def check_cells(cells: Iterable[Cell], where: str) -> None:
    """Raise ValueError naming `where` and the cell when cells have a bad role or span, or overlap."""
    covered: dict[tuple[int, int], Cell] = {}
    for c in cells:
        if c.role not in ROLES:
            raise ValueError(f"{where}: cell ({c.grid_row}, {c.grid_col}) has unknown role {c.role!r}")
        if c.grid_row < 1 or c.grid_col < 1 or c.rowspan < 1 or c.colspan < 1:
            raise ValueError(f"{where}: cell ({c.grid_row}, {c.grid_col}) has a position or span below 1")
        for r in range(c.grid_row, c.grid_row + c.rowspan):
            for k in range(c.grid_col, c.grid_col + c.colspan):
                other = covered.setdefault((r, k), c)
                if other is not c:
                    raise ValueError(
                        f"{where}: cells at ({other.grid_row}, {other.grid_col}) and ({c.grid_row}, {c.grid_col}) "
                        f"both cover ({r}, {k})")
