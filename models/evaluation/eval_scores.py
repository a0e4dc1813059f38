"""Precision, recall, F1 and complete containment of every request, in both scoring modes."""
from evaluation_py.predict import SCORE_QUESTION_COLUMNS, scores_table
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    questions = dbt.ref("benchmark_questions").project(", ".join(SCORE_QUESTION_COLUMNS)).df()
    out = scores_table(dbt.ref("eval_requests").df(), dbt.ref("eval_predictions").df(), questions)
    return stamp(out, dbt.ref("stg_build_config"))
