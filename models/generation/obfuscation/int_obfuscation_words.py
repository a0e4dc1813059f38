"""The obfuscated variant's word map: one invented non-word per content word of the vocabulary (seeded)."""
from generator_py.dbt_glue.vars import seed_var
from generator_py.obfuscation.relations import word_map_frame


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("stg_build_config")  # after the gate: no table is replaced before every input is checked
    return word_map_frame(values=dbt.ref("stg_domain_values").df(), attributes=dbt.ref("stg_domain_attributes").df(),
                          templates=dbt.ref("stg_table_templates").df(), nl_templates=dbt.ref("stg_nl_templates").df(),
                          meanings=dbt.ref("stg_nl_table_meanings").df(),
                          aggregation_terms=dbt.ref("stg_aggregation_terms").df(), seed=seed_var(dbt.config.get("seed")))
