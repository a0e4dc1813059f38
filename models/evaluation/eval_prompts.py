"""The zero-shot chat messages sent for each question and table format (one row per distinct prompt)."""
from evaluation_py.dbt_glue.evaluation_inputs import eval_entries, eval_inputs_from_relations, table_images_in
from evaluation_py.running.predictions import prompts_table
from generator_py.dbt_glue.build_config import database_path, output_dir, stamp


def model(dbt, session):
    dbt.config(materialized="table")

    def table_images():  # read only when an entry asks for images: a build without them needs none built
        folder = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
        return table_images_in(dbt.ref("benchmark_table_images"), folder)

    def finetune_splits():  # read only when an entry has `splits:`: a build without them needs none built
        return dbt.ref("benchmark_finetune_splits")

    entries = eval_entries(dbt.config.get("eval_models"), dbt.config.get("eval_scope"))
    inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                        entries, dbt.config.get("seed"), images=table_images,
                                        splits=finetune_splits)
    return stamp(prompts_table(inputs.requests), dbt.ref("stg_build_config"))
