"""The LLM judge's verdict on every prediction of this build (var judge_model; empty when it is null).

Judge requests are cached in the predictions store under keys of their own: a rebuild sends nothing
already judged, and the judge's backend is started only when something is not.
"""
from evaluation_py.dbt_glue.evaluation_inputs import store_path
from evaluation_py.scoring.judge import judgements_table
from generator_py.dbt_glue.build_config import database_path, stamp
from generator_py.dbt_glue.vars import parse_config
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    requests = frame(dbt.ref("eval_requests").project("cache_key, question_id, table_id, model_name, inference_mode"))
    predictions = frame(dbt.ref("eval_predictions").project("cache_key, response"))
    questions = frame(dbt.ref("benchmark_questions").project("question_id, question, answer_gt"))
    out = judgements_table(requests, predictions, questions, parse_config(dbt.config.get("judge_model")),
                           store_path(dbt.config.get("eval_cache_dir"), database_path(session)))
    return stamp(out, dbt.ref("stg_build_config"))
