"""The cell grid of every obfuscated table: the original's cells with their words mapped (int_table_grid
takes these rows in, so every rendering and the images cover the variant)."""
from generator_py.obfuscation.relations import obfuscated_grid


def model(dbt, session):
    dbt.config(materialized="table")
    return obfuscated_grid(dbt.ref("int_hct_cells").df(), dbt.ref("int_table_instances").df(),
                           dbt.ref("int_obfuscation_words").df())
