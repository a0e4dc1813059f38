"""Effect of each table property and question property on per-question F1 and CC, per model under test and pooled."""
from evaluation_py.analysis.regression import property_regressions
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    out = property_regressions(dbt.ref("eval_scores").df(), dbt.ref("benchmark_tables").df(),
                               dbt.ref("benchmark_questions").df())
    return stamp(out, dbt.ref("stg_build_config"))
