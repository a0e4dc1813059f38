"""Sampled relational tables: one row per relational row, with its table's layout settings."""
from generator_py.tables.generation import load_all, sample_all
from generator_py.dbt_glue.vars import scale_options, seed_var


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("int_table_variants")  # validated and expanded first; same seeds give the same variants
    vocab, templates, variants = load_all(
        attributes=dbt.ref("stg_domain_attributes").df(),
        values=dbt.ref("stg_domain_values").df(),
        ranges=dbt.ref("stg_domain_value_ranges").df(),
        effects=dbt.ref("stg_domain_value_effects").df(),
        templates=dbt.ref("stg_table_templates").df(),
        options=dbt.ref("stg_table_template_options").df(),
        **scale_options(dbt.config.get("replicas"), dbt.config.get("domains")),
    )
    return sample_all(vocab, templates, variants, seed_var(dbt.config.get("seed")))
