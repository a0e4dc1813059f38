"""The LLM judge against our complete-containment score: confusion counts and Cohen's kappa per evaluated model."""
from evaluation_py.analysis.judge_agreement import judge_agreement
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    judgements = frame(dbt.ref("eval_judgements").project("judge_name, model_name, inference_mode, cache_key, judge_correct"))
    scores = frame(dbt.ref("eval_scores").filter("metric = 'cc' and scoring_mode = 'strict'").project(
        "cache_key, scoring_mode, metric, value"))
    return stamp(judge_agreement(judgements, scores), dbt.ref("stg_build_config"))
