"""One HCT as the item builders see it: its relational rows, its value cells by position, its CSV grid."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple, Optional

import numpy as np
import pandas as pd

from ..core.formatting import format_value
from ..questions.spec import Rows


@lru_cache(maxsize=1 << 18)
def canonical_text(value: float) -> str:
    return format_value(value)


class ValueCell(NamedTuple):
    """A data or aggregate cell of the grid (1-based CSV row and column); a tuple: tables hold many."""

    row: int
    col: int
    role: str  # 'data' or 'aggregate'
    value: float
    row_group: tuple
    col_group: tuple
    answer_text: str  # the value as an answer states it (canonical number), not as the cell prints it


def value_cell(row: int, col: int, role: str, value: float, row_group: tuple, col_group: tuple) -> ValueCell:
    return ValueCell(row, col, role, value, row_group, col_group, canonical_text(value))


@dataclass
class ChoiceTable:
    table_id: str
    template_key: str  # tables with the same key share structure and headers (one individual template)
    row_attributes: tuple
    col_attributes: tuple
    rows: Rows
    cells: dict = field(default_factory=dict)  # (row, col) -> ValueCell
    grid: list = field(default_factory=list)  # CSV rendering: list of rows of cell texts
    data_by_answer: dict = field(default_factory=dict)  # canonical value text -> data ValueCell
    domain: str = ""  # the domain and table template: which statement subject (choice_statements) is its
    template_name: str = ""

    def __post_init__(self) -> None:
        self.data_by_answer = {c.answer_text: c for c in self.cells.values() if c.role == "data"}

    def attribute_values(self, attribute: str) -> frozenset:
        cache = self.__dict__.setdefault("_values_cache", {})
        if attribute not in cache:
            i = self.rows.index[attribute]
            cache[attribute] = frozenset(r[i] for r in self.rows.rows if r[i] is not None)
        return cache[attribute]

    def parents_of(self, attribute: str) -> dict:
        """Each value of the attribute -> the values of the attributes above it on its axis."""
        cache = self.__dict__.setdefault("_parents_cache", {})
        if attribute not in cache:
            idx = self.rows.index[attribute]
            attrs = list(self.row_attributes if attribute in self.row_attributes else self.col_attributes)
            parents = [self.rows.index[a] for a in attrs[:attrs.index(attribute)]]
            found: dict = {}
            for r in self.rows.rows:
                if r[idx] is not None and r[idx] not in found:
                    found[r[idx]] = tuple(r[p] for p in parents)
            cache[attribute] = found
        return cache[attribute]

    def data_cell_of(self, answer_value: str) -> Optional[ValueCell]:
        return self.data_by_answer.get(answer_value)

    def data_cells_of_rows(self, rel_rows: list[tuple]) -> list[ValueCell]:
        """The data cells that show these relational rows (attribute values -> row and column paths)."""
        n_row = len(self.row_attributes)
        by_path = self._by_path()
        out = []
        for r in rel_rows:
            row_group = tuple([v for v in r[:n_row] if v is not None])
            col_group = tuple([v for v in r[n_row:-1] if v is not None])
            cell = by_path.get((row_group, col_group))
            if cell is not None:
                out.append(cell)
        return out

    def _by_path(self) -> dict:
        cached = getattr(self, "_path_index", None)
        if cached is None:
            cached = {(c.row_group, c.col_group): c for c in self.cells.values() if c.role == "data"}
            self._path_index = cached
        return cached


GRID_COLUMNS = ("table_id", "grid_row", "grid_col", "rowspan", "colspan", "text")


def text_grids(cells: pd.DataFrame) -> dict[str, list[list[str]]]:
    """Each table's grid of cell texts from its anchored cells (intermediate.int_table_grid): a cell's text
    at its anchor, "" at the positions its span covers and at empty positions, the grid as wide and as
    high as its cells reach. These are the positions and texts of benchmark_tables.csv (render/csv.py
    writes TableGrid.texts(), the same flattening), so probes read the grid and name CSV positions.

    Raises ValueError naming the column when one is missing, and the table and cell when a text is NULL
    or a position or span is below 1.
    """
    missing = [c for c in GRID_COLUMNS if c not in cells.columns]
    if missing:
        raise ValueError(f"grid cells (intermediate.int_table_grid) lack columns {', '.join(missing)}")
    table_ids = cells["table_id"].to_numpy(dtype=object)
    rows, cols = cells["grid_row"].to_numpy(dtype="int64"), cells["grid_col"].to_numpy(dtype="int64")
    row_span, col_span = cells["rowspan"].to_numpy(dtype="int64"), cells["colspan"].to_numpy(dtype="int64")
    bad = (np.minimum(np.minimum(rows, cols), np.minimum(row_span, col_span)) < 1).nonzero()[0]
    if len(bad):
        i = bad[0]
        raise ValueError(f"grid cells: table {table_ids[i]}, cell ({rows[i]}, {cols[i]}) has a position or span below 1")
    extent = pd.DataFrame({"table_id": table_ids, "bottom": rows + row_span - 1, "right": cols + col_span - 1})
    extent = extent.groupby("table_id", sort=True).max()
    out = {t: [[""] * w for _ in range(h)]
           for t, h, w in zip(extent.index.tolist(), extent["bottom"].tolist(), extent["right"].tolist())}
    for table_id, row, col, text in zip(table_ids.tolist(), rows.tolist(), cols.tolist(),
                                        cells["text"].to_numpy(dtype=object).tolist()):
        if not isinstance(text, str):
            raise ValueError(f"grid cells: table {table_id}, cell ({row}, {col}) has no text")
        out[table_id][row - 1][col - 1] = text
    return out


def parse_csv_grid(text: str, table_id: str) -> list[list[str]]:
    """The CSV rendering as a rectangular grid of texts (row 1 is the first header row)."""
    grid = [list(r) for r in csv.reader(io.StringIO(text))]
    grid = [r for r in grid if r]
    if not grid:
        raise ValueError(f"table {table_id}: empty CSV rendering")
    width = max(len(r) for r in grid)
    return [r + [""] * (width - len(r)) for r in grid]
