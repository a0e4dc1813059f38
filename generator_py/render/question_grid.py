"""A question's own view of its table: the table's grid with what the question asks about hidden (the
caption for title naming, one header cell's text for header naming), rendered in every text format by
the same renderers as the table. The change is made on the grid, so every format shows it alike. A question
that reads two tables shows both: each table's rendering under a line naming it (`tables_view`)."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Iterator, Optional, Sequence

import pandas as pd
import pyarrow as pa

from ..grid.cells import TableGrid
from .registry import format_names, render

# the question's own view per text format: a column of benchmark_questions each (NULL when it shows its table's)
RENDERING_PREFIX = "rendering_"
RENDERING_COLUMNS = ("question_id",) + tuple(RENDERING_PREFIX + n for n in format_names(text_only=True))


def question_grid(grid: TableGrid, hides_caption: bool = False,
                  blank_cell: Optional[tuple[int, int]] = None, question_id: str = "") -> TableGrid:
    """`grid` without its caption (`hides_caption`) and with the header cell anchored at `blank_cell`
    (grid_row, grid_col) emptied; an anchor that is no header cell of the grid is an error."""
    cells = grid.cells
    if blank_cell is not None:
        r, c = blank_cell
        hits = [i for i, cell in enumerate(cells) if (cell.grid_row, cell.grid_col) == (r, c)]
        if not hits or not cells[hits[0]].is_header:
            raise ValueError(f"question {question_id}: blank_grid_row/blank_grid_col ({r}, {c}) is no header cell "
                             "of its table's grid")
        i = hits[0]
        cells = cells[:i] + (cells[i]._replace(text=""),) + cells[i + 1:]
    return replace(grid, cells=cells, caption=None if hides_caption else grid.caption)


def question_renderings(grids: Iterable[tuple[str, TableGrid]], questions: pd.DataFrame) -> Iterator[tuple]:
    """(question_id, text per text format) of every question of `questions` (question_id, table_id,
    hides_caption, blank_grid_row, blank_grid_col) whose rendering hides something."""
    changed = questions[questions["hides_caption"].fillna(False).astype(bool) | questions["blank_grid_row"].notna()]
    by_table: dict[str, list] = {}
    for q in changed.sort_values("question_id").itertuples(index=False):
        by_table.setdefault(q.table_id, []).append(q)
    names = format_names(text_only=True)
    for table_id, grid in grids:
        for q in by_table.pop(table_id, ()):
            blank = None if pd.isna(q.blank_grid_row) else (int(q.blank_grid_row), int(q.blank_grid_col))
            g = question_grid(grid, bool(q.hides_caption), blank, q.question_id)
            yield (q.question_id,) + tuple(render(g, n) for n in names)
    if by_table:
        missing = sorted(by_table)
        raise ValueError(f"questions of tables without a grid in int_table_grid: {missing[:5]}")


TABLE_HEADINGS = ("First table:", "Second table:")  # what the questions reading two tables call them


def tables_view(texts: Sequence[str]) -> str:
    """Several tables' renderings in one text, each under its heading (TABLE_HEADINGS), a blank line between."""
    if not 1 < len(texts) <= len(TABLE_HEADINGS):
        raise ValueError(f"a view of several tables shows 2 to {len(TABLE_HEADINGS)} tables, got {len(texts)}")
    return "\n\n".join(h + "\n" + t.rstrip("\n") for h, t in zip(TABLE_HEADINGS, texts))


def several_tables_renderings(questions: pd.DataFrame, texts: pd.DataFrame) -> Iterator[tuple]:
    """(question_id, text per text format) of every question of `questions` (question_id, tables) that reads
    several tables; `texts`: int_table_renderings rows of those tables (table_id and a column per text format)."""
    names = format_names(text_only=True)
    by_table = {tid: row for tid, row in zip(texts["table_id"], texts[list(names)].itertuples(index=False))}
    for qid, tables in zip(questions["question_id"].tolist(), questions["tables"].tolist()):
        tables = [str(t) for t in tables]
        if len(tables) < 2:
            continue
        missing = [t for t in tables if t not in by_table]
        if missing:
            raise ValueError(f"question {qid}: table {missing[0]!r} has no rendering in int_table_renderings")
        yield (qid,) + tuple(tables_view([getattr(by_table[t], n) for t in tables]) for n in names)


def question_renderings_table(grids: Iterable[tuple[str, TableGrid]], questions: pd.DataFrame,
                              several: Optional[pd.DataFrame] = None, texts: Optional[pd.DataFrame] = None
                              ) -> pa.Table:
    """question_renderings, and the views of the questions reading several tables (`several`: question_id,
    tables; `texts`: their tables' renderings), as a table of text columns ordered by question_id (typed even
    when no question has a view of its own)."""
    rows = list(question_renderings(grids, questions))
    if several is not None and len(several):
        rows = sorted(rows + list(several_tables_renderings(several, texts)), key=lambda r: r[0])
    cols = list(zip(*rows)) if rows else [()] * len(RENDERING_COLUMNS)
    return pa.table({n: pa.array(list(c), type=pa.string()) for n, c in zip(RENDERING_COLUMNS, cols)})
