"""Check of the sql_text questions' ground truth: SQLite runs each family's equivalent query (the SQL transpiled,
or a union of plain GROUP BYs where SQLite has no OLAP grouping) on the same tables, beside the generator's own
answer; one row per such question, `agrees` tested true."""
from generator_py.answers.sql_text_answers import cross_check
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("int_question_instances").filter("kind = 'sql_text'").project(
        "question_id, table_id, family, tables, spec_json, py_answer_json"))
    session.register("sql_text_check_tables", questions[["tables"]].explode("tables").drop_duplicates())
    rows = frame(dbt.ref("int_relational_rows").filter("table_id in (select tables from sql_text_check_tables)"))
    return cross_check(questions, frame(dbt.ref("int_sql_text_answers")), rows)
