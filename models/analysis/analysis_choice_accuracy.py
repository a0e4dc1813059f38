"""Choice accuracy per model x scoring x subset x distractor strategy x content variant: per order,
over both orders, position bias, and against random guessing (binomial test)."""
from evaluation_py.choice.analysis import choice_accuracy
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    return stamp(choice_accuracy(dbt.ref("eval_choice_predictions").df()), dbt.ref("stg_build_config"))
