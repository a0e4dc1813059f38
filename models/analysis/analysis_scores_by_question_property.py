"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_question_property."""
from evaluation_py.analysis import scores_by_question_property


def model(dbt, session):
    dbt.config(materialized="table")
    return scores_by_question_property(dbt.ref("eval_scores").df(), dbt.ref("benchmark_questions").df())
