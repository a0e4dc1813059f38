"""The questions of the counterfactual sets: every layout-invariant question of a set's base on each of its
layouts (same text, SQL and spec; metadata and question properties of the layout; the answer evaluated again on
the layout and checked to be the base's: generator_py.counterfactuals.questions)."""
from generator_py.counterfactuals.questions import layout_questions
from generator_py.dbt_glue.vars import question_suites_var
from generator_py.questions.families import families_for_suites
from generator_py.questions.instances import COLUMNS, relational_tables
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    families = families_for_suites(question_suites_var(dbt.config.get("question_suites")))
    layouts = frame(dbt.ref("int_counterfactual_table_instances"))
    session.register("counterfactual_layouts", layouts[["table_id", "original_table_id"]])
    rows = frame(dbt.ref("int_counterfactual_relational_rows").filter(
        "table_id in (select table_id from counterfactual_layouts)"))
    aggregates = (frame(dbt.ref("int_counterfactual_hct_cells")
                  .filter("role = 'aggregate' and table_id in (select table_id from counterfactual_layouts)")
                  .project("table_id, row_group, col_group, value").distinct()
                  .order("table_id, row_group, col_group")))
    tables = {t.table_id: t for t in relational_tables(layouts, rows, aggregates)}
    # as Arrow: the copies keep int_question_instances' column types (a NULL count stays an integer)
    base_questions = dbt.ref("int_question_instances").filter(
        "table_id in (select original_table_id from counterfactual_layouts)").to_arrow_table()
    return layout_questions(base_questions, layouts, tables, families, COLUMNS)
