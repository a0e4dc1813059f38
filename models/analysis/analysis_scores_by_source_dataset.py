"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_source_dataset."""
from evaluation_py.analysis import scores_by_source_dataset


def model(dbt, session):
    dbt.config(materialized="table")
    return scores_by_source_dataset(dbt.ref("eval_scores").df())
