"""The obfuscated variant of every relational table (T_REL): labels and attribute names mapped, values kept."""
from generator_py.dbt_glue.relations import arrow_table
from generator_py.obfuscation.relations import obfuscated_relational_rows


def model(dbt, session):
    dbt.config(materialized="table")
    return obfuscated_relational_rows(arrow_table(dbt.ref("int_relational_rows")),
                                      dbt.ref("int_obfuscation_words").df())
