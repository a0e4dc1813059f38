"""Requests still unanswered after their retries (kind, attempts); they are sent again on the next build."""
from evaluation_py.dbt_inputs import eval_inputs, store_path
from evaluation_py.predict import errors_table


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("eval_predictions")  # errors are known once predictions ran
    inputs = eval_inputs(dbt.ref("benchmark_questions").df(), dbt.ref("benchmark_tables").df(),
                         dbt.config.get("eval_models"), dbt.config.get("seed"))
    return errors_table(inputs.requests, store_path(dbt.config.get("eval_cache_dir")))
