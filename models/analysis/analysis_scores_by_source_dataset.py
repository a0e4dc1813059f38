"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_source_dataset."""
from evaluation_py.analysis import scores_by_source_dataset
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    out = scores_by_source_dataset(dbt.ref("eval_scores").df())
    return stamp(out, dbt.ref("stg_build_config"))
