"""One row per (model under test, question, table format): the prediction requests of this build."""
from evaluation_py.dbt_inputs import eval_inputs_from_relations
from evaluation_py.predict import requests_table


def model(dbt, session):
    dbt.config(materialized="table")
    inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                        dbt.config.get("eval_models"), dbt.config.get("seed"))
    return requests_table(inputs.requests)
