"""The zero-shot chat messages sent for each question and table format (one row per distinct prompt)."""
from evaluation_py.dbt_inputs import eval_inputs_from_relations
from evaluation_py.predict import prompts_table
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                        dbt.config.get("eval_models"), dbt.config.get("seed"))
    return stamp(prompts_table(inputs.requests), dbt.ref("stg_build_config"))
