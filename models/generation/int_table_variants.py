"""Individual table templates: one row per valid combination of the generic template options."""
from generator_py.tables.generation import load_all, variants_frame
from generator_py.dbt_glue.vars import scale_options
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("stg_build_config")  # every var checked before the first generation model writes
    dbt.ref("stg_domain_value_expectations")  # and the expectations seed validated
    # dbt finds refs and config keys by reading this file, so each one is spelled out.
    _, _, variants = load_all(
        attributes=frame(dbt.ref("stg_domain_attributes")),
        values=frame(dbt.ref("stg_domain_values")),
        ranges=frame(dbt.ref("stg_domain_value_ranges")),
        effects=frame(dbt.ref("stg_domain_value_effects")),
        templates=frame(dbt.ref("stg_table_templates")),
        options=frame(dbt.ref("stg_table_template_options")),
        **scale_options(dbt.config.get("replicas"), dbt.config.get("domains")),
    )
    return variants_frame(variants)
