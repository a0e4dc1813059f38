"""Model answers of this build's requests, from the predictions cache: a rerun sends nothing already
answered, an interrupted run resumes. One row per request's episode: its final answer (the turns of a
multi-turn episode are in eval_turns).

A table rebuilt from the cache each build (not incremental), so it holds answers of the models
configured now and nothing else, each passing its checksum. Prompts are rendered again (and backends
started) only when the cache lacks an answer, so a fully cached rebuild costs a key lookup.
"""
from evaluation_py.dbt_inputs import eval_inputs_from_relations, store_path
from evaluation_py.predict import predict_pending
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")

    def table_images():  # read only when an entry asks for images: a build without them needs none built
        return dbt.ref("benchmark_table_images")

    requests = dbt.ref("eval_requests").project("cache_key, inference_mode, kind, prompt_version").df()

    def make_inputs():
        inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                            dbt.config.get("eval_models"), dbt.config.get("seed"),
                                            images=table_images)
        return inputs.specs, inputs.requests, inputs.benchmark

    out = predict_pending(requests, set(), store_path(dbt.config.get("eval_cache_dir")), make_inputs)
    return stamp(out, dbt.ref("stg_build_config"))
