"""Consistency of each model's answers across the perturbed views of one question (TReB's robustness subtask):
see evaluation_py.analysis.robustness."""
from evaluation_py.analysis.robustness import QUESTION_COLUMNS, robustness_consistency
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var


def model(dbt, session):
    dbt.config(materialized="table")
    questions = dbt.ref("benchmark_questions").filter("suite = 'treb'").project(
        ", ".join((*QUESTION_COLUMNS, "variant"))).df()
    requests = dbt.ref("eval_requests").project(
        "cache_key, question_id, table_id, model_name, table_format, inference_mode, turn").df()
    predictions = dbt.ref("eval_predictions").df()
    scores = dbt.ref("eval_scores").filter("metric = 'exact_match' and scoring_mode = 'strict'").project(
        "cache_key, scoring_mode, metric, value").df()
    out = robustness_consistency(requests, predictions, scores, questions, seed_var(dbt.config.get("seed")))
    return stamp(out, dbt.ref("stg_build_config"))
