"""The value expectations (seed domain_value_expectations), validated against the vocabulary: one row per
term of each side of each statement, for the data test assert_value_expectations_hold."""
from generator_py.vocabulary.domains import load_domains
from generator_py.vocabulary.value_expectations import load_value_expectations


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("stg_build_config")  # after the gate, like every model but the seed views
    vocab = load_domains(dbt.ref("stg_domain_attributes").df(), dbt.ref("stg_domain_values").df(),
                         dbt.ref("stg_domain_value_ranges").df())
    return load_value_expectations(dbt.ref("domain_value_expectations").df(), vocab)
