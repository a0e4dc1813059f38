"""Model answers of this build's requests, from the predictions cache: a rerun sends nothing already
answered, an interrupted run resumes.

A table rebuilt from the cache each build (not incremental), so it holds answers of the models
configured now and nothing else, each passing its checksum. Prompts are rendered again (and backends
started) only when the cache lacks an answer, so a fully cached rebuild costs a key lookup.
"""
from evaluation_py.dbt_inputs import eval_inputs_from_relations, store_path
from evaluation_py.predict import predict_pending
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    request_keys = [k for (k,) in dbt.ref("eval_requests").project("cache_key").fetchall()]

    def make_inputs():
        inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                            dbt.config.get("eval_models"), dbt.config.get("seed"))
        return inputs.specs, inputs.requests

    out = predict_pending(request_keys, set(), store_path(dbt.config.get("eval_cache_dir")), make_inputs)
    return stamp(out, dbt.ref("stg_build_config"))
