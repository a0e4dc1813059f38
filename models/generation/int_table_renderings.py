"""Every table's text renderings (one column per registered text format) from the cell grid, some thousand
tables at a time (a large build's parts go to DuckDB as they come: `landed`)."""
from generator_py.dbt_glue.relations import landed, whole_groups_apart
from generator_py.grid.relation import CELL_COLUMNS, TABLE_COLUMNS
from generator_py.render.tables import rendered_part


def model(dbt, session):
    dbt.config(materialized="table")
    grid = dbt.ref("int_table_grid").project(", ".join(("table_id",) + CELL_COLUMNS + TABLE_COLUMNS))
    cells = whole_groups_apart(session, grid, "table_id", "table_id, grid_row, grid_col", 100_000)
    return landed(session, (rendered_part(part) for part in cells), "int_table_renderings")
