"""One row per (model, question, table format, mode): the prediction requests whose answers the marts show.

This build's requests, and in the accumulate scope (var eval_scope, the default) every request of a
model evaluated on this benchmark (same build_fingerprint) by an earlier build that the store has
answered, each model with its latest entry (evaluation_py.running.results). Replay files are checked against
the benchmark here, once, before any answer is read.
"""
from evaluation_py.dbt_glue.evaluation_inputs import build_requests_with_results, eval_entries, eval_inputs_from_relations, store_path, table_images_in
from evaluation_py.running.predictions import requests_table
from generator_py.dbt_glue.build_config import database_path, fingerprint_of, output_dir, stamp


def model(dbt, session):
    dbt.config(materialized="table")

    def table_images():  # read only when an entry asks for images: a build without them needs none built
        folder = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
        return table_images_in(dbt.ref("benchmark_table_images"), folder)

    def finetune_splits():  # read only when an entry has `splits:`: a build without them needs none built
        return dbt.ref("benchmark_finetune_splits")

    entries = eval_entries(dbt.config.get("eval_models"), dbt.config.get("eval_scope"))
    inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                        entries, dbt.config.get("seed"), check_replay=True, images=table_images,
                                        splits=finetune_splits)
    config = dbt.ref("stg_build_config")
    out = build_requests_with_results(requests_table(inputs.requests), entries, dbt.config.get("eval_scope"),
                                      dbt.config.get("eval_remove_models"), fingerprint_of(config),
                                      store_path(dbt.config.get("eval_cache_dir"), database_path(session)))
    return stamp(out, config)
