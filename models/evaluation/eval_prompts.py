"""The zero-shot chat messages sent for each question and table format (one row per distinct prompt)."""
from evaluation_py.dbt_inputs import eval_inputs
from evaluation_py.predict import prompts_table


def model(dbt, session):
    dbt.config(materialized="table")
    inputs = eval_inputs(dbt.ref("benchmark_questions").df(), dbt.ref("benchmark_tables").df(),
                         dbt.config.get("eval_models"), dbt.config.get("seed"))
    return prompts_table(inputs.requests)
