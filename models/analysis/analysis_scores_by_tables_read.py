"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_tables_read."""
from evaluation_py.analysis import scores_by_tables_read
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("benchmark_question_tables").aggregate("question_id, count(*) as n_tables", "question_id"))
    scores = frame(dbt.ref("eval_scores").project(
        "model_name, inference_mode, scoring_mode, table_format, question_id, metric, value, left_out"))
    return stamp(scores_by_tables_read(scores, questions), dbt.ref("stg_build_config"))
