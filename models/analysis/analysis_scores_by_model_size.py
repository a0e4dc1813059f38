"""Per model family, the score's slope per billion parameters (RQ7): see evaluation_py.analysis.model_trends."""
from evaluation_py.analysis.model_trends import scores_by_model_size
from evaluation_py.dbt_glue.evaluation_inputs import entry_metadata, scores_of_models
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    metadata = entry_metadata(dbt.config.get("eval_models"), dbt.config.get("eval_scope"))
    scores = scores_of_models(dbt.ref("eval_scores"), metadata.loc[metadata["family"].notna(), "model_name"])
    return stamp(scores_by_model_size(scores, metadata), dbt.ref("stg_build_config"))
