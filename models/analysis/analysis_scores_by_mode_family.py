"""Scores by model x inference mode x question family: see evaluation_py.analysis.mode_comparison."""
from evaluation_py.analysis.mode_comparison import scores_by_mode_family
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    scored = dbt.ref("eval_scores")
    questions = frame(rows_scored(dbt.ref("benchmark_questions").project("question_id, family"), scored, "question_id"))
    return stamp(scores_by_mode_family(frame(scored), questions), dbt.ref("stg_build_config"))
