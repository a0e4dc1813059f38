"""Every table's text renderings from its grid: the frame behind `int_table_renderings`."""
from __future__ import annotations

import gc
from typing import Iterable

import pandas as pd

from generator_py.grid.cells import TableGrid
from generator_py.render.registry import format_names, get_format


def render_tables(grids: Iterable[tuple[str, TableGrid]]) -> pd.DataFrame:
    """One row per (table_id, grid): `table_id`, `n_rows`, `n_columns` and one column per registered text format."""
    names = format_names(text_only=True)
    renderers = [get_format(n).render for n in names]
    rows = []
    # About a million small cell tuples at the default scale: without this the collector rescans them
    # over and over, which doubles the time. They hold no reference cycles.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for table_id, grid in grids:
            rows.append((table_id, grid.n_rows, grid.n_columns, *(r(grid) for r in renderers)))
    finally:
        if gc_was_enabled:
            gc.enable()
    out = pd.DataFrame(rows, columns=["table_id", "n_rows", "n_columns", *names])
    return out.astype({"n_rows": "int64", "n_columns": "int64"})


def rendered_part(cells: "pa.Table") -> "pa.Table":
    """`render_tables` of the grid cells of some whole tables (an Arrow table of int_table_grid's columns, rows
    in table and grid order), as an Arrow table: one part of int_table_renderings."""
    import pyarrow as pa

    from ..grid.relation import grids_from_batches

    return pa.Table.from_pandas(render_tables(grids_from_batches([cells.to_pydict()])), preserve_index=False)
