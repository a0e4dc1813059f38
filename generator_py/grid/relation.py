"""The grid relation (`int_table_grid`): one row per anchored cell of every table, table settings
repeated on each row, so that one relation rebuilds every `TableGrid`."""
from __future__ import annotations

from typing import Iterable, Iterator, Mapping, Sequence

import pandas as pd

from generator_py.grid.cells import Cell, TableGrid

CELL_COLUMNS = ("grid_row", "grid_col", "rowspan", "colspan", "role", "text", "is_aggregate")
TABLE_COLUMNS = ("caption", "borders", "header_rows", "header_columns")
GRID_COLUMNS = ("table_id", "source") + CELL_COLUMNS + TABLE_COLUMNS


def grid_rows(table_id: str, source: str, grid: TableGrid) -> list[dict]:
    """The relation's rows of one table."""
    settings = {"caption": grid.caption, "borders": grid.borders, "header_rows": grid.header_rows,
                "header_columns": grid.header_columns}
    return [{"table_id": table_id, "source": source, **{k: getattr(c, k) for k in CELL_COLUMNS}, **settings}
            for c in grid.cells]


def grids_from_frame(frame: pd.DataFrame) -> Iterator[tuple[str, TableGrid]]:
    """(table_id, grid) per table of a frame with the relation's columns, in table_id order."""
    missing = [c for c in ("table_id",) + CELL_COLUMNS + TABLE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"grid relation lacks columns {', '.join(missing)}")
    frame = frame.sort_values(["table_id", "grid_row", "grid_col"], kind="stable")
    integers = {"grid_row", "grid_col", "rowspan", "colspan", "header_rows", "header_columns"}
    columns = {}
    for column in ("table_id",) + CELL_COLUMNS + TABLE_COLUMNS:
        series = frame[column]
        if column in integers:
            series = series.astype("int64")
        elif column in ("is_aggregate", "borders"):
            series = series.astype(bool)
        columns[column] = series.astype(object).where(series.notna(), None).tolist()
    return grids_from_columns(columns)


def grids_from_columns(columns: Mapping[str, Sequence]) -> Iterator[tuple[str, TableGrid]]:
    """(table_id, grid) per table from the relation's columns as Python sequences, rows ordered by
    table_id, grid_row, grid_col (as `order by` gives them; the fast path of the dbt model).

    Raises ValueError naming the column when one is missing, and naming the table when a cell's text is NULL.
    """
    missing = [c for c in ("table_id",) + CELL_COLUMNS + TABLE_COLUMNS if c not in columns]
    if missing:
        raise ValueError(f"grid relation lacks columns {', '.join(missing)}")
    table_ids = list(columns["table_id"])
    cell_columns = [list(columns[c]) for c in CELL_COLUMNS]
    texts = cell_columns[CELL_COLUMNS.index("text")]
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise ValueError(f"grid relation: table {table_ids[i]}, cell ({cell_columns[0][i]}, {cell_columns[1][i]}) "
                             "has no text")
    cells = list(map(Cell._make, zip(*cell_columns)))
    settings = list(zip(*(columns[c] for c in TABLE_COLUMNS)))
    start = 0
    for i in range(1, len(table_ids) + 1):
        if i == len(table_ids) or table_ids[i] != table_ids[start]:
            yield table_ids[start], _grid(cells[start:i], settings[start])
            start = i


def grids_from_batches(batches: Iterable[Mapping[str, list]]) -> Iterator[tuple[str, TableGrid]]:
    """(table_id, grid) per table from the relation's rows in consecutive batches (each {column: list}, rows
    ordered by table_id, grid_row, grid_col across batches); a table cut by a batch boundary is made whole
    from the next batch. Errors as `grids_from_columns`."""
    held: dict[str, list] = {}
    for batch in batches:
        columns = {c: held.get(c, []) + list(v) for c, v in batch.items()} if held else batch
        ids = columns.get("table_id")
        if not ids:
            continue
        cut = len(ids)  # the batch's last table may go on in the next batch: hold it back
        while cut > 0 and ids[cut - 1] == ids[-1]:
            cut -= 1
        yield from grids_from_columns({c: v[:cut] for c, v in columns.items()}) if cut else ()
        held = {c: v[cut:] for c, v in columns.items()}
    if held.get("table_id"):
        yield from grids_from_columns(held)


def _grid(cells: list[Cell], settings: tuple) -> TableGrid:
    caption, borders, header_rows, header_columns = settings
    return TableGrid(tuple(cells), header_rows=int(header_rows), header_columns=int(header_columns),
                     caption=caption if isinstance(caption, str) else None, borders=bool(borders))
