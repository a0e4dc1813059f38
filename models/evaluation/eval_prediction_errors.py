"""Requests of this build without an answer (last error kind and attempts); they are sent again on the next
build. Any row is reported as a warning with counts per model and error kind."""
import logging

from evaluation_py.dbt_glue.evaluation_inputs import store_path
from evaluation_py.running.predictions import errors_table, failure_summary
from generator_py.dbt_glue.build_config import database_path, stamp
from generator_py.dbt_glue.relations import frame

log = logging.getLogger("eval_prediction_errors")


def model(dbt, session):
    dbt.config(materialized="table")
    requests = frame(dbt.ref("eval_requests").project("cache_key, question_id, model_name"))
    answered = [k for (k,) in dbt.ref("eval_predictions").project("cache_key").fetchall()]
    errors = errors_table(requests, answered, store_path(dbt.config.get("eval_cache_dir"), database_path(session)))
    summary = failure_summary(requests, errors)
    if summary:
        log.warning(summary)
    return stamp(errors, dbt.ref("stg_build_config"))
