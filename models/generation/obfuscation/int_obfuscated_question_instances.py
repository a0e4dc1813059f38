"""The obfuscated variant of every synthetic SQL question (the HCT-QA suite; TReB's computed and naming
questions are not twinned): the same query and NL with the table's words mapped, each column typed as
int_question_instances types it (a column NULL on every row stays of its type)."""
from generator_py.dbt_glue.relations import arrow_table
from generator_py.obfuscation.relations import obfuscated_questions


def model(dbt, session):
    dbt.config(materialized="table")
    originals = dbt.ref("int_question_instances")
    out = obfuscated_questions(
        originals.filter("kind = 'sql'").df(), dbt.ref("int_table_instances").df(),
        arrow_table(dbt.ref("int_relational_rows").project("table_id, rel_row, row_labels, col_labels, value")),
        dbt.ref("stg_domain_attributes").df(), dbt.ref("int_obfuscation_words").df())
    typed = dict(zip(originals.columns, (str(t) for t in originals.types)))
    session.register("obfuscated_question_frame", out)
    columns = [f'cast("{c}" as {typed[c]}) as "{c}"' if c in typed else f'"{c}"' for c in out.columns]
    return session.sql(f"select {', '.join(columns)} from obfuscated_question_frame")
