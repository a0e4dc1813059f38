"""The turns of this build's finished multi-turn episodes (inference modes of more than one turn), from the
predictions cache: one row per turn, its follow-up message and the model's reply. Single-turn requests
(the `direct` mode) have no rows: their one turn is their row of eval_predictions."""
from evaluation_py.dbt_glue.evaluation_inputs import store_path
from evaluation_py.running.predictions import turns_table
from generator_py.dbt_glue.build_config import database_path, stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    # The episodes eval_predictions has answers for: read after it, so the store holds this build's turns.
    requests = frame(dbt.ref("eval_predictions").project("cache_key, inference_mode"))
    return stamp(turns_table(requests, store_path(dbt.config.get("eval_cache_dir"), database_path(session))), dbt.ref("stg_build_config"))
