"""One row per code block run for this build's pot and icot predictions (pot: its one program; icot:
each block of the replies that got a follow-up), from the execution cache beside the predictions:
which sandbox ran it, its error kind (NULL when it ran), its answer and its output (capped)."""
from evaluation_py.dbt_glue.evaluation_inputs import eval_entries, own_views, sandbox_of_entries, store_path
from evaluation_py.modes.outcomes import executions_table, text_columns_typed
from generator_py.dbt_glue.build_config import database_path, stamp
from evaluation_py.modes.execution import TABLE_INPUTS
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    predictions = frame(dbt.ref("eval_predictions").project("cache_key, question_id, model_name, inference_mode, response"))
    requests = frame(dbt.ref("eval_requests").project("cache_key, table_id"))
    out = executions_table(predictions, requests, store_path(dbt.config.get("eval_cache_dir"), database_path(session)),
                           lambda: frame(dbt.ref("benchmark_tables").project(", ".join(("table_id",) + TABLE_INPUTS))),
                           sandbox_of_entries(eval_entries(dbt.config.get("eval_models"),
                                                           dbt.config.get("eval_scope"))),
                           lambda: own_views(dbt))
    out = text_columns_typed(out, ["cache_key", "question_id", "model_name", "inference_mode", "sandbox", "error_kind",
                                   "answer", "output"])
    return stamp(out, dbt.ref("stg_build_config"))
