"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.answer_verbosity."""
from evaluation_py.analysis import answer_verbosity
from generator_py.dbt_glue.build_config import stamp
from generator_py.core.child_process import in_child_process


def model(dbt, session):
    dbt.config(materialized="table")
    out = in_child_process(answer_verbosity, dbt.ref("eval_scores").df())
    return stamp(out, dbt.ref("stg_build_config"))
