"""Zero-shot against one-shot entries (Table VIII): see evaluation_py.analysis.shots."""
from evaluation_py.analysis.shots import scores_by_shots
from evaluation_py.dbt_glue.evaluation_inputs import entry_metadata, scores_of_models
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    metadata = entry_metadata(dbt.config.get("eval_models"), dbt.config.get("eval_scope"))
    # read only when an entry has shots: 1 (nothing to compare otherwise)
    names = metadata["model_name"] if (metadata["shots"] == 1).any() else []
    scores = scores_of_models(dbt.ref("eval_scores"), names)
    return stamp(scores_by_shots(scores, metadata), dbt.ref("stg_build_config"))
