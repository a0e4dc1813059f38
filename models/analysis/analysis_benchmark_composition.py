"""What a build contains: tables and questions per domain, template, property and property combination."""
from evaluation_py.analysis import benchmark_composition


def model(dbt, session):
    dbt.config(materialized="table")
    return benchmark_composition(dbt.ref("benchmark_tables").df(), dbt.ref("benchmark_questions").df())
