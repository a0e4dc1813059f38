"""Scores by model x inference mode x question family: see evaluation_py.analysis.mode_comparison."""
from evaluation_py.analysis.mode_comparison import scores_by_mode_family
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("benchmark_questions").project("question_id, family"))
    return stamp(scores_by_mode_family(frame(dbt.ref("eval_scores")), questions), dbt.ref("stg_build_config"))
