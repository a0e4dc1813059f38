"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_aggregation_type."""
from evaluation_py.analysis import scores_by_aggregation_type
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    out = scores_by_aggregation_type(dbt.ref("eval_scores").df(), dbt.ref("benchmark_questions").df())
    return stamp(out, dbt.ref("stg_build_config"))
