"""The table views of the questions that do not show their table as it is: those whose view differs from their
table's rendering (a naming question hides its answer: no caption, one header cell empty, a column without its
header; a robustness question shows its table perturbed; a plausibility question one value made implausible; an
outlier question one value moved), rendered from the table's grid (generator_py.render.question_grid), and those
that read two tables, both tables' renderings one under the other. One column per text format;
benchmark_questions carries them, and prompts of these questions show them instead of the table's rendering."""
from generator_py.grid.relation import CELL_COLUMNS, TABLE_COLUMNS, grids_from_batches
from generator_py.render.question_grid import question_renderings_table, value_paths
from generator_py.render.registry import format_names
from generator_py.dbt_glue.relations import column_batches, frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("int_question_instances").filter(
        "hides_caption or blank_grid_row is not null or grid_change is not null").project(
        "question_id, table_id, hides_caption, blank_grid_row, blank_grid_col, grid_change"))
    session.register("question_rendering_tables", questions[["table_id"]].drop_duplicates())
    grid = (dbt.ref("int_table_grid").filter("table_id in (select table_id from question_rendering_tables)")
            .project(", ".join(("table_id",) + CELL_COLUMNS + TABLE_COLUMNS)).order("table_id, grid_row, grid_col"))
    # the header paths of the value cells of the tables a grid change is made on (what it reads)
    session.register("question_change_tables",
                     questions.loc[questions["grid_change"].notna(), ["table_id"]].drop_duplicates())
    cells = (frame(dbt.ref("int_table_grid").filter("table_id in (select table_id from question_change_tables) "
                                              "and row_group is not null")
             .project("table_id, grid_row, grid_col, row_group, col_group")))
    paths = value_paths(*(cells[c].tolist() for c in ("table_id", "grid_row", "grid_col", "row_group", "col_group")))
    several = frame(dbt.ref("int_question_instances").filter("len(tables) > 1").project("question_id, tables"))
    session.register("several_tables", several[["tables"]].explode("tables").drop_duplicates())
    texts = frame(dbt.ref("int_table_renderings").filter("table_id in (select tables from several_tables)").project(
        ", ".join(("table_id",) + tuple(f"\"{n}\"" for n in format_names(text_only=True)))))
    return question_renderings_table(grids_from_batches(column_batches(grid)), questions, paths, several, texts)
