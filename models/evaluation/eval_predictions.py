"""Model answers of eval_requests (this build's and, accumulated, earlier builds' on this benchmark), from the predictions cache: a rerun sends nothing already
answered, an interrupted run resumes. One row per request's episode: its final answer (the turns of a
multi-turn episode are in eval_turns).

A table rebuilt from the cache each build (not incremental), so it holds answers of the requests
eval_requests lists and nothing else, each passing its checksum. Prompts are rendered again (and backends
started) only when the cache lacks an answer, so a fully cached rebuild costs a key lookup.
The reasoning modes' columns (reasoning, sandbox, execution_*) come from evaluation_py.modes.outcomes:
pot's program runs here once, its result cached beside the answers.
"""
from evaluation_py.dbt_glue.evaluation_inputs import eval_entries, eval_inputs_from_relations, sandbox_of_entries, store_path, table_images_in
from evaluation_py.modes.outcomes import MODE_COLUMNS, text_columns_typed, with_mode_columns
from evaluation_py.dbt_glue.evaluation_inputs import own_views
from evaluation_py.running.predictions import predict_pending
from generator_py.dbt_glue.build_config import database_path, output_dir, stamp
from evaluation_py.modes.execution import TABLE_INPUTS
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")

    def table_images():  # read only when an entry asks for images: a build without them needs none built
        folder = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
        return table_images_in(dbt.ref("benchmark_table_images"), folder)

    def finetune_splits():  # read only when an entry has `splits:`: a build without them needs none built
        return dbt.ref("benchmark_finetune_splits")

    requests = frame(dbt.ref("eval_requests").project(
        "cache_key, model_name, backend, table_id, inference_mode, kind, prompt_version, this_build"))

    entries = eval_entries(dbt.config.get("eval_models"), dbt.config.get("eval_scope"))

    def make_inputs():
        inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                            entries, dbt.config.get("seed"), images=table_images,
                                        splits=finetune_splits)
        return inputs.specs, inputs.requests, inputs.benchmark

    path = store_path(dbt.config.get("eval_cache_dir"), database_path(session))
    out = predict_pending(requests, set(), path, make_inputs)
    out = with_mode_columns(out, requests, path, lambda: frame(dbt.ref("benchmark_tables").project(
        ", ".join(("table_id",) + TABLE_INPUTS))), sandbox_of_entries(entries), lambda: own_views(dbt))
    out = text_columns_typed(out, [c for c in MODE_COLUMNS if c != "code_blocks"])
    return stamp(out, dbt.ref("stg_build_config"))
