"""Turns used per multi-turn episode (icot): see evaluation_py.analysis.mode_comparison."""
from evaluation_py.analysis.mode_comparison import episode_turns
from evaluation_py.modes.inference_mode import get_mode, mode_names
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    predictions = frame(dbt.ref("eval_predictions").project("model_name, inference_mode, turn, response"))
    multi = [m for m in mode_names() if get_mode(m).multi_turn]
    return stamp(episode_turns(predictions, multi), dbt.ref("stg_build_config"))
