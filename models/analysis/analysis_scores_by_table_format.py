"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_table_format."""
from evaluation_py.analysis import scores_by_table_format
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    out = scores_by_table_format(dbt.ref("eval_scores").df())
    return stamp(out, dbt.ref("stg_build_config"))
