"""Every table's text renderings (one column per registered text format) from the cell grid."""
from generator_py.grid.relation import GRID_COLUMNS
from generator_py.render.tables import render_tables


def model(dbt, session):
    dbt.config(materialized="table")
    return render_tables(dbt.ref("int_table_grid").project(", ".join(GRID_COLUMNS)).df())
