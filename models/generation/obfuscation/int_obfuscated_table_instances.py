"""The obfuscated variant of every synthetic table instance (value name and attribute names mapped)."""
from generator_py.obfuscation.relations import obfuscated_instances


def model(dbt, session):
    dbt.config(materialized="table")
    return obfuscated_instances(dbt.ref("int_table_instances").df(), dbt.ref("int_obfuscation_words").df())
