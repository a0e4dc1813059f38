"""The value expectations (seed domain_value_expectations), validated against the vocabulary: one row per
term of each side of each statement, for the data test assert_value_expectations_hold."""
from generator_py.vocabulary.domains import load_domains
from generator_py.vocabulary.value_expectations import load_value_expectations
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("stg_build_config")  # after the gate, like every model but the seed views
    vocab = load_domains(frame(dbt.ref("stg_domain_attributes")), frame(dbt.ref("stg_domain_values")),
                         frame(dbt.ref("stg_domain_value_ranges")))
    return load_value_expectations(frame(dbt.ref("domain_value_expectations")), vocab)
