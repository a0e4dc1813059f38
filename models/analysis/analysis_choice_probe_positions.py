"""Structure-probe accuracy by target row and column, per model, scoring, probe and content variant."""
from evaluation_py.choice.analysis import probe_positions
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    return stamp(probe_positions(frame(dbt.ref("eval_choice_predictions"))), dbt.ref("stg_build_config"))
