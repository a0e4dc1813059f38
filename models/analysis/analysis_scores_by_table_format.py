"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_table_format."""
from evaluation_py.analysis import scores_by_table_format


def model(dbt, session):
    dbt.config(materialized="table")
    return scores_by_table_format(dbt.ref("eval_scores").df())
