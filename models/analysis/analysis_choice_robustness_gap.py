"""The robustness gap b_tis - m_tis per model and scoring: the cost of a pseudo-relevant second table."""
from evaluation_py.choice.analysis import robustness_gap
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    return stamp(robustness_gap(frame(dbt.ref("eval_choice_predictions"))), dbt.ref("stg_build_config"))
