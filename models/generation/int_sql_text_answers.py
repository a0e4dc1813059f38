"""Ground truth of the questions whose answer is their own SQL text (kind sql_text: two tables, OLAP grouping):
DuckDB runs each question's SQL on its relational tables (`T`, or `T1` and `T2`), one row per answer row."""
from generator_py.answers.sql_text_answers import duckdb_answers
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("int_question_instances").filter("kind = 'sql_text'").project(
        "question_id, tables, sql").order("question_id"))
    session.register("sql_text_tables", questions[["tables"]].explode("tables").drop_duplicates())
    rows = frame(dbt.ref("int_relational_rows").filter("table_id in (select tables from sql_text_tables)"))
    return duckdb_answers(questions, rows)
