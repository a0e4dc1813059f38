"""Independent check of the ground truth: each question's SQL text, transpiled by sqlglot to SQLite and run
with Python's sqlite3, must give the answer DuckDB computed. All questions with var cross_check: true,
otherwise a fixed sample of 1,000."""
from generator_py.answer_check import cross_check_frame
from generator_py.dbt_inputs import parse_config


def model(dbt, session):
    dbt.config(materialized="table")
    questions = dbt.ref("int_question_instances").df()
    answers = dbt.ref("int_question_answers").df()
    rows = dbt.ref("int_relational_rows").df()
    return cross_check_frame(
        questions=questions[["question_id", "table_id", "template_id", "sql"]],
        answers=answers,
        rows=rows,
        check_all=bool(parse_config(dbt.config.get("cross_check"))),
        seed=int(parse_config(dbt.config.get("seed"))),
    )
