"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_tables_read."""
from evaluation_py.analysis import scores_by_tables_read
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    questions = dbt.ref("benchmark_question_tables").aggregate("question_id, count(*) as n_tables", "question_id").df()
    scores = dbt.ref("eval_scores").project(
        "model_name, inference_mode, scoring_mode, table_format, question_id, metric, value, left_out").df()
    return stamp(scores_by_tables_read(scores, questions), dbt.ref("stg_build_config"))
