"""Model answers, cached by request key: a rerun sends nothing already answered, an interrupted run resumes.

The request keys come from eval_requests; prompts are rendered again (and backends started) only when
the predictions store lacks an answer, so a fully cached rebuild costs a key lookup.
"""
from evaluation_py.dbt_inputs import eval_inputs_from_relations, store_path
from evaluation_py.predict import predict_pending


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key="cache_key")
    request_keys = [k for (k,) in dbt.ref("eval_requests").project("cache_key").fetchall()]
    done = set()
    if dbt.is_incremental:
        done = {row[0] for row in session.sql(f"select cache_key from {dbt.this}").fetchall()}

    def make_inputs():
        inputs = eval_inputs_from_relations(dbt.ref("benchmark_questions"), dbt.ref("benchmark_tables"),
                                            dbt.config.get("eval_models"), dbt.config.get("seed"))
        return inputs.specs, inputs.requests

    return predict_pending(request_keys, done, store_path(dbt.config.get("eval_cache_dir")), make_inputs)
