"""Sampled relational tables: one row per relational row, with its table's layout settings (made by the
sampling workers a chunk of tables at a time; a large build's chunks go to DuckDB as they come: `landed`)."""
from generator_py.tables.generation import load_all, sample_all
from generator_py.dbt_glue.vars import scale_options, seed_var
from generator_py.dbt_glue.relations import frame, landed


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("int_table_variants")  # validated and expanded first; same seeds give the same variants
    vocab, templates, variants = load_all(
        attributes=frame(dbt.ref("stg_domain_attributes")),
        values=frame(dbt.ref("stg_domain_values")),
        ranges=frame(dbt.ref("stg_domain_value_ranges")),
        effects=frame(dbt.ref("stg_domain_value_effects")),
        templates=frame(dbt.ref("stg_table_templates")),
        options=frame(dbt.ref("stg_table_template_options")),
        **scale_options(dbt.config.get("replicas"), dbt.config.get("domains")),
    )
    return landed(session, sample_all(vocab, templates, variants, seed_var(dbt.config.get("seed"))), "int_sampled_rows")
