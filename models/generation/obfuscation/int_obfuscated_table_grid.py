"""The cell grid of every obfuscated table: the original's cells with their words mapped (int_table_grid
takes these rows in, so every rendering and the images cover the variant)."""
from generator_py.dbt_glue.relations import arrow_table
from generator_py.obfuscation.relations import obfuscated_grid


def model(dbt, session):
    dbt.config(materialized="table")
    return obfuscated_grid(arrow_table(dbt.ref("int_hct_cells")), arrow_table(dbt.ref("int_table_instances")),
                           dbt.ref("int_obfuscation_words").df())
