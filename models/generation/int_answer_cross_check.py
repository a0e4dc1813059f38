"""Independent check of the ground truth: each question's SQL text, transpiled by sqlglot to SQLite and run
with Python's sqlite3, must give the answer DuckDB computed. All questions with var cross_check: true,
otherwise a fixed sample of 1,000."""
from generator_py.answers.sql_cross_check import choose_questions, cross_check_frame
from generator_py.dbt_glue.relations import arrow_table
from generator_py.dbt_glue.vars import bool_var, seed_var
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    # the SQL families' answers (a family that computes its own is checked by int_family_cross_check)
    questions = frame(dbt.ref("int_question_instances").filter("kind = 'sql'").project(
        "question_id, table_id, template_id, sql"))
    chosen = choose_questions(questions, bool_var("cross_check", dbt.config.get("cross_check"), False),
                              seed_var(dbt.config.get("seed")))
    # only the answers and relational rows of the chosen questions leave DuckDB
    session.register("cross_check_chosen", chosen[["question_id", "table_id"]])
    answers = frame(dbt.ref("int_question_answers").filter(
        "question_id in (select question_id from cross_check_chosen)"))
    rows = arrow_table(dbt.ref("int_relational_rows").filter(
        "table_id in (select table_id from cross_check_chosen)"))
    return in_child_process(cross_check_frame, chosen, answers, rows)
