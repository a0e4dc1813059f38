"""Every table's text renderings (one column per registered text format) from the cell grid."""
from generator_py.dbt_glue.relations import column_batches
from generator_py.grid.relation import CELL_COLUMNS, TABLE_COLUMNS, grids_from_batches
from generator_py.render.tables import render_tables


def model(dbt, session):
    dbt.config(materialized="table")
    grid = dbt.ref("int_table_grid").project(", ".join(("table_id",) + CELL_COLUMNS + TABLE_COLUMNS))
    # plain Python lists in grid order (faster than a DataFrame for a million cells), a batch of cells at a time
    return render_tables(grids_from_batches(column_batches(grid.order("table_id, grid_row, grid_col"))))
