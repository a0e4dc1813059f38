"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_creation_type."""
from evaluation_py.analysis import scores_by_creation_type
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    questions = dbt.ref("benchmark_questions").project("question_id, creation_type").df()
    out = scores_by_creation_type(dbt.ref("eval_scores").df(), questions)
    return stamp(out, dbt.ref("stg_build_config"))
