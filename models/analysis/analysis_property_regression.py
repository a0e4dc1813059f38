"""Effect of each table property and question property on per-question F1 and CC, per model under test and pooled."""
from evaluation_py.analysis.regression import property_regressions
from generator_py.dbt_glue.build_config import stamp
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import question_text_columns, table_text_columns, without_columns


def model(dbt, session):
    dbt.config(materialized="table")
    out = in_child_process(property_regressions, dbt.ref("eval_scores").df(),
                           without_columns(dbt.ref("benchmark_tables"), table_text_columns()).df(),
                           without_columns(dbt.ref("benchmark_questions"), question_text_columns()).df())
    return stamp(out, dbt.ref("stg_build_config"))
