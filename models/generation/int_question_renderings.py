"""The table views of the questions that hide or change part of their table (title_name: no caption; header_name:
one header cell empty; outlier: one data cell showing its moved value): one column per text format, rendered from
the table's grid (generator_py.render.question_grid); benchmark_questions carries them, and prompts of these
questions show them instead of the table's rendering (a code mode's program reads them too)."""
from generator_py.grid.relation import CELL_COLUMNS, TABLE_COLUMNS, grids_from_columns
from generator_py.render.question_grid import CHANGE_COLUMNS, question_renderings_table


def model(dbt, session):
    dbt.config(materialized="table")
    questions = dbt.ref("int_question_instances").filter(
        "hides_caption or blank_grid_row is not null or moved_cell_json is not null").project(
        ", ".join(("question_id", "table_id") + CHANGE_COLUMNS)).df()
    session.register("question_rendering_tables", questions[["table_id"]].drop_duplicates())
    session.register("moved_cell_tables", questions.loc[questions["moved_cell_json"].notna(), ["table_id"]]
                     .drop_duplicates())
    grid = (dbt.ref("int_table_grid").filter("table_id in (select table_id from question_rendering_tables)")
            .project(", ".join(("table_id",) + CELL_COLUMNS + TABLE_COLUMNS)).order("table_id, grid_row, grid_col"))
    data_cells = (dbt.ref("int_table_grid").filter("role = 'data' and table_id in (select table_id from moved_cell_tables)")
                  .project("table_id, grid_row, grid_col, row_group, col_group").df())
    columns = {name: values.tolist() for name, values in grid.fetchnumpy().items()}
    return question_renderings_table(grids_from_columns(columns), questions, data_cells)
