"""One row per (model under test, question, table format): the prediction requests of this build."""
from evaluation_py.dbt_inputs import eval_inputs
from evaluation_py.predict import requests_table


def model(dbt, session):
    dbt.config(materialized="table")
    inputs = eval_inputs(dbt.ref("benchmark_questions").df(), dbt.ref("benchmark_tables").df(),
                         dbt.config.get("eval_models"), dbt.config.get("seed"))
    return requests_table(inputs.requests)
