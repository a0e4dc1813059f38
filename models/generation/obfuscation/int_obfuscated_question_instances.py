"""The obfuscated variant of every synthetic SQL question (the HCT-QA suite; TReB's computed and naming
questions are not twinned): the same query and NL with the table's words mapped."""
from generator_py.dbt_glue.relations import arrow_table
from generator_py.obfuscation.relations import obfuscated_questions


def model(dbt, session):
    dbt.config(materialized="table")
    return obfuscated_questions(
        dbt.ref("int_question_instances").filter("kind = 'sql'").df(), dbt.ref("int_table_instances").df(),
        arrow_table(dbt.ref("int_relational_rows").project("table_id, rel_row, row_labels, col_labels, value")),
        dbt.ref("stg_domain_attributes").df(), dbt.ref("int_obfuscation_words").df())
