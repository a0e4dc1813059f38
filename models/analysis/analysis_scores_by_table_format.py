"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_table_format."""
from evaluation_py.analysis import scores_by_table_format
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    out = scores_by_table_format(frame(dbt.ref("eval_scores")))
    return stamp(out, dbt.ref("stg_build_config"))
