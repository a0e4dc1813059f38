"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_template."""
from evaluation_py.analysis import scores_by_template


def model(dbt, session):
    dbt.config(materialized="table")
    return scores_by_template(dbt.ref("eval_scores").df(), dbt.ref("benchmark_questions").df())
