"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.answer_verbosity."""
from evaluation_py.analysis import answer_verbosity
from generator_py.dbt_glue.build_config import stamp
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    out = in_child_process(answer_verbosity, frame(dbt.ref("eval_scores")))
    return stamp(out, dbt.ref("stg_build_config"))
