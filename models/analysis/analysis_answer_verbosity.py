"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.answer_verbosity."""
from evaluation_py.analysis import answer_verbosity


def model(dbt, session):
    dbt.config(materialized="table")
    return answer_verbosity(dbt.ref("eval_scores").df())
