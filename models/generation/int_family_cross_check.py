"""Independent check of the answers of the families that compute their own (pandas/numpy on the relational
rows, the grid's caption and header text): one row per such question, `agrees` tested true."""
from generator_py.answers.computed_cross_check import family_cross_check
from generator_py.dbt_glue.relations import arrow_table
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("int_question_instances").filter("kind not in ('sql', 'sql_text')").project(
        "question_id, table_id, family, spec_json, py_answer_json, steps_json"))
    session.register("family_check_tables", questions[["table_id"]].drop_duplicates())
    chosen = "table_id in (select table_id from family_check_tables)"
    rows = arrow_table(dbt.ref("int_relational_rows").filter(chosen))
    grid = frame(dbt.ref("int_table_grid").filter(chosen).project("table_id, grid_row, grid_col, text, caption"))
    return family_cross_check(questions, rows, grid)
