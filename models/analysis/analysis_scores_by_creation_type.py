"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_creation_type."""
from evaluation_py.analysis import scores_by_creation_type
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    scored = dbt.ref("eval_scores")
    questions = frame(rows_scored(dbt.ref("benchmark_questions").project("question_id, creation_type"), scored,
                                  "question_id"))
    scores = frame(scored.project(
        "model_name, inference_mode, scoring_mode, table_format, question_id, metric, value, left_out"))
    out = scores_by_creation_type(scores, questions)
    return stamp(out, dbt.ref("stg_build_config"))
