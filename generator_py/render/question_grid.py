"""A question's own view of its table: the table's grid with what the question asks about hidden (the
caption for title naming, one header cell's text for header naming) or changed as its `grid_change` says
(generator_py.render.grid_changes: perturbed, one value made implausible, one column alone), rendered in every
text format by the same renderers as the table. The change is made on the grid, so every format shows it alike.
A question that reads two tables shows both: each table's rendering under a line naming it (`tables_view`)."""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Iterable, Iterator, Mapping, Optional, Sequence

import pandas as pd
import pyarrow as pa

from ..grid.cells import TableGrid
from .grid_changes import Paths, apply_change
from .registry import format_names, render

# the question's own view per text format: a column of benchmark_questions each (NULL when it shows its table's)
RENDERING_PREFIX = "rendering_"
RENDERING_COLUMNS = ("question_id",) + tuple(RENDERING_PREFIX + n for n in format_names(text_only=True))


def question_grid(grid: TableGrid, hides_caption: bool = False,
                  blank_cell: Optional[tuple[int, int]] = None, question_id: str = "",
                  change: Optional[Mapping] = None, paths: Optional[Paths] = None) -> TableGrid:
    """`grid` without its caption (`hides_caption`), with the header cell anchored at `blank_cell`
    (grid_row, grid_col) emptied (an anchor that is no header cell of the grid is an error) and changed as
    `change` says (grid_changes.apply_change, reading `paths`: the header paths of the value cells)."""
    if change is not None:
        grid = apply_change(grid, change, paths or {}, f"question {question_id}")
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


def question_renderings(grids: Iterable[tuple[str, TableGrid]], questions: pd.DataFrame,
                        paths: Optional[Mapping[str, Paths]] = None) -> Iterator[tuple]:
    """(question_id, text per text format) of every question of `questions` (question_id, table_id,
    hides_caption, blank_grid_row, blank_grid_col, and grid_change: JSON text or None) whose view differs from its
    table's rendering. `paths`: table_id -> the header paths of its value cells, what grid changes read."""
    if "grid_change" not in questions.columns:
        questions = questions.assign(grid_change=None)
    changed = questions[questions["hides_caption"].fillna(False).astype(bool) | questions["blank_grid_row"].notna()
                        | questions["grid_change"].notna()]
    by_table: dict[str, list] = {}
    for q in changed.sort_values("question_id").itertuples(index=False):
        by_table.setdefault(q.table_id, []).append(q)
    names = format_names(text_only=True)
    for table_id, grid in grids:
        for q in by_table.pop(table_id, ()):
            blank = None if pd.isna(q.blank_grid_row) else (int(q.blank_grid_row), int(q.blank_grid_col))
            change = json.loads(q.grid_change) if isinstance(q.grid_change, str) else None
            g = question_grid(grid, bool(q.hides_caption), blank, q.question_id, change,
                              (paths or {}).get(table_id, {}))
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
                              paths: Optional[Mapping[str, Paths]] = None, several: Optional[pd.DataFrame] = None,
                              texts: Optional[pd.DataFrame] = None) -> pa.Table:
    """question_renderings (`paths` as there), and the views of the questions reading several tables
    (`several`: question_id, tables; `texts`: their tables' renderings), as a table of text columns ordered by
    question_id (typed even when no question has a view of its own)."""
    rows = list(question_renderings(grids, questions, paths))
    if several is not None and len(several):
        rows = sorted(rows + list(several_tables_renderings(several, texts)), key=lambda r: r[0])
    cols = list(zip(*rows)) if rows else [()] * len(RENDERING_COLUMNS)
    return pa.table({n: pa.array(list(c), type=pa.string()) for n, c in zip(RENDERING_COLUMNS, cols)})


def value_paths(table_ids: Iterable, grid_rows: Iterable, grid_cols: Iterable, row_groups: Iterable,
                col_groups: Iterable) -> dict[str, dict]:
    """table_id -> (grid_row, grid_col) -> (row group, column group) of the value cells of int_table_grid."""
    out: dict[str, dict] = {}
    for t, r, c, rg, cg in zip(table_ids, grid_rows, grid_cols, row_groups, col_groups):
        if rg is not None and cg is not None:
            out.setdefault(t, {})[(int(r), int(c))] = (tuple(rg), tuple(cg))
    return out
