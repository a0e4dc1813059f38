"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.answer_verbosity."""
from evaluation_py.analysis import answer_verbosity
from evaluation_py.analysis.inputs import analysis_scores


def model(dbt, session):
    dbt.config(materialized="table")
    return answer_verbosity(analysis_scores(dbt.ref("eval_scores").df()))
