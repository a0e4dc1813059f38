"""Requests still unanswered after their retries (kind, attempts); they are sent again on the next build."""
from evaluation_py.dbt_inputs import store_path
from evaluation_py.predict import errors_table_for_keys


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("eval_predictions")  # errors are known once predictions ran
    keys = [k for (k,) in dbt.ref("eval_requests").project("cache_key").fetchall()]
    return errors_table_for_keys(keys, store_path(dbt.config.get("eval_cache_dir")))
