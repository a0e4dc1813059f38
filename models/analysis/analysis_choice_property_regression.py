"""Effect of each table property on whether a choice item is right in both orders, per model under test."""
from evaluation_py.choice.analysis import property_regressions
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    out = property_regressions(frame(dbt.ref("eval_choice_predictions")), frame(dbt.ref("benchmark_tables")))
    return stamp(out, dbt.ref("stg_build_config"))
