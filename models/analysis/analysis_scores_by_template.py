"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_template."""
from evaluation_py.analysis import scores_by_template
from generator_py.dbt_glue.build_config import stamp
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import question_text_columns, without_columns
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    scores = dbt.ref("eval_scores")
    out = in_child_process(scores_by_template, frame(scores),
                           frame(rows_scored(without_columns(dbt.ref("benchmark_questions"), question_text_columns()),
                                             scores, "question_id")))
    return stamp(out, dbt.ref("stg_build_config"))
