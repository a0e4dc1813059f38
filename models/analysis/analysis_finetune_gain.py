"""Fine-tuned models against their base (RQ4, Table VI): see evaluation_py.analysis.finetune_gain."""
from evaluation_py.analysis.finetune_gain import finetune_gain
from evaluation_py.dbt_glue.evaluation_inputs import entry_metadata, scores_of_models
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    metadata = entry_metadata(dbt.config.get("eval_models"), dbt.config.get("eval_scope"))
    tuned = metadata[metadata["base_model"].notna()]
    scores = scores_of_models(dbt.ref("eval_scores"), [*tuned["model_name"], *tuned["base_model"]],
                              "model_name, table_format, inference_mode, scoring_mode, metric, source, question_id, "
                              "value, left_out")
    return stamp(finetune_gain(scores, metadata), dbt.ref("stg_build_config"))
