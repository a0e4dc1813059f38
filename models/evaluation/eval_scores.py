"""Precision, recall, F1 and complete containment of every request, in both scoring modes."""
from evaluation_py.predict import scores_table


def model(dbt, session):
    dbt.config(materialized="table")
    return scores_table(dbt.ref("eval_requests").df(), dbt.ref("eval_predictions").df(),
                        dbt.ref("benchmark_questions").df())
