"""Correct by construction, checked: each obfuscated question's SQL text run on its obfuscated table gives its
answer, and that answer mapped back is the original question's answer."""
from generator_py.dbt_glue.relations import arrow_table
from generator_py.dbt_glue.vars import bool_var, seed_var
from generator_py.obfuscation.relations import obfuscation_check


def model(dbt, session):
    dbt.config(materialized="table")
    return obfuscation_check(
        dbt.ref("int_obfuscated_question_instances").project(
            "question_id, original_question_id, table_id, template_id, sql, spec_json").df(),
        dbt.ref("int_obfuscated_question_answers").df(), arrow_table(dbt.ref("int_obfuscated_relational_rows")),
        dbt.ref("int_question_answers").df(), dbt.ref("int_obfuscation_words").df(),
        bool_var("cross_check", dbt.config.get("cross_check"), False), seed_var(dbt.config.get("seed")))
