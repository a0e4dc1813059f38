"""Effect of each table property and question property on per-question F1 and CC, per model under test and pooled."""
from evaluation_py.analysis.regression import property_regressions


def model(dbt, session):
    dbt.config(materialized="table")
    return property_regressions(dbt.ref("eval_scores").df(), dbt.ref("benchmark_tables").df(),
                                dbt.ref("benchmark_questions").df())
