"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.answer_verbosity."""
from evaluation_py.analysis import answer_verbosity
from evaluation_py.analysis.inputs import analysis_scores
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    return stamp(answer_verbosity(analysis_scores(dbt.ref("eval_scores").df())), dbt.ref("stg_build_config"))
