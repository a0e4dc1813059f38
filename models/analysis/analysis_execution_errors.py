"""How pot / icot code runs ended, by kind: see evaluation_py.analysis.mode_comparison."""
from evaluation_py.analysis.mode_comparison import execution_errors
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    return stamp(execution_errors(frame(dbt.ref("eval_executions"))), dbt.ref("stg_build_config"))
