"""A question's own view of its table: the table's grid with what the question asks about hidden (the
caption for title naming, one header cell's text for header naming) or changed (one data cell showing a moved
value for outlier detection), rendered in every text format by the same renderers as the table. The change is
made on the grid, so every format shows it alike."""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Iterable, Iterator, Optional

import pandas as pd
import pyarrow as pa

from ..grid.cells import TableGrid
from .registry import format_names, render

# the question's own view per text format: a column of benchmark_questions each (NULL when it shows its table's)
RENDERING_PREFIX = "rendering_"
RENDERING_COLUMNS = ("question_id",) + tuple(RENDERING_PREFIX + n for n in format_names(text_only=True))


def question_grid(grid: TableGrid, hides_caption: bool = False,
                  blank_cell: Optional[tuple[int, int]] = None, question_id: str = "",
                  moved_cell: Optional[tuple[int, int, str]] = None) -> TableGrid:
    """`grid` without its caption (`hides_caption`), with the header cell anchored at `blank_cell`
    (grid_row, grid_col) emptied and the data cell anchored at `moved_cell` (grid_row, grid_col, text) showing
    that text; an anchor that is no header (no data) cell of the grid is an error."""
    cells = grid.cells
    for change, wanted, text in ((blank_cell, "header", ""), (moved_cell and moved_cell[:2], "data",
                                                             moved_cell and moved_cell[2])):
        if change is None:
            continue
        r, c = change
        hits = [i for i, cell in enumerate(cells) if (cell.grid_row, cell.grid_col) == (r, c)]
        ok = hits and (cells[hits[0]].is_header if wanted == "header" else cells[hits[0]].role == "data")
        if not ok:
            what = "blank_grid_row/blank_grid_col" if wanted == "header" else "the moved cell"
            raise ValueError(f"question {question_id}: {what} ({r}, {c}) is no {wanted} cell of its table's grid")
        i = hits[0]
        cells = cells[:i] + (cells[i]._replace(text=text),) + cells[i + 1:]
    return replace(grid, cells=cells, caption=None if hides_caption else grid.caption)


CHANGE_COLUMNS = ("hides_caption", "blank_grid_row", "blank_grid_col", "moved_cell_json")


def _changed(questions: pd.DataFrame) -> pd.DataFrame:
    moved = questions["moved_cell_json"].notna() if "moved_cell_json" in questions else False
    return questions[questions["hides_caption"].fillna(False).astype(bool) | questions["blank_grid_row"].notna() | moved]


def question_renderings(grids: Iterable[tuple[str, TableGrid]], questions: pd.DataFrame,
                        data_cells: Optional[pd.DataFrame] = None) -> Iterator[tuple]:
    """(question_id, text per text format) of every question of `questions` (question_id, table_id,
    hides_caption, blank_grid_row, blank_grid_col and, optionally, moved_cell_json) whose rendering changes
    something. `data_cells` (table_id, grid_row, grid_col, row_group, col_group: int_table_grid's data cells
    of those tables) place a moved cell by its header paths."""
    changed = _changed(questions)
    at = {}
    if data_cells is not None:
        at = {(t, tuple(rg), tuple(cg)): (int(r), int(c)) for t, r, c, rg, cg in
              zip(*(data_cells[k].tolist() for k in ("table_id", "grid_row", "grid_col", "row_group", "col_group")))}
    by_table: dict[str, list] = {}
    for q in changed.sort_values("question_id").itertuples(index=False):
        by_table.setdefault(q.table_id, []).append(q)
    names = format_names(text_only=True)
    for table_id, grid in grids:
        for q in by_table.pop(table_id, ()):
            blank = None if pd.isna(q.blank_grid_row) else (int(q.blank_grid_row), int(q.blank_grid_col))
            moved = None
            raw = getattr(q, "moved_cell_json", None)
            if isinstance(raw, str):
                cell = json.loads(raw)
                key = (table_id, tuple(cell["row_path"]), tuple(cell["col_path"]))
                if key not in at:
                    raise ValueError(f"question {q.question_id}: its moved cell {cell['row_path']} x {cell['col_path']} "
                                     "is no data cell of its table in int_table_grid")
                moved = (*at[key], cell["text"])
            g = question_grid(grid, bool(q.hides_caption), blank, q.question_id, moved)
            yield (q.question_id,) + tuple(render(g, n) for n in names)
    if by_table:
        missing = sorted(by_table)
        raise ValueError(f"questions of tables without a grid in int_table_grid: {missing[:5]}")


def question_renderings_table(grids: Iterable[tuple[str, TableGrid]], questions: pd.DataFrame,
                              data_cells: Optional[pd.DataFrame] = None) -> pa.Table:
    """question_renderings as a table of text columns (typed even when no question changes anything)."""
    rows = list(question_renderings(grids, questions, data_cells))
    cols = list(zip(*rows)) if rows else [()] * len(RENDERING_COLUMNS)
    return pa.table({n: pa.array(list(c), type=pa.string()) for n, c in zip(RENDERING_COLUMNS, cols)})
