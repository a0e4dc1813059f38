"""Choice accuracy per model x scoring x subset x distractor strategy x content variant: per order,
over both orders, position bias, and against random guessing (binomial test)."""
from evaluation_py.choice.analysis import choice_accuracy
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    return stamp(choice_accuracy(frame(dbt.ref("eval_choice_predictions"))), dbt.ref("stg_build_config"))
