"""Model answers, cached by request key: a rerun sends nothing already answered, an interrupted run resumes."""
from evaluation_py.dbt_inputs import eval_inputs, store_path
from evaluation_py.predict import predict


def model(dbt, session):
    dbt.config(materialized="incremental", unique_key="cache_key")
    dbt.ref("eval_requests")
    inputs = eval_inputs(dbt.ref("benchmark_questions").df(), dbt.ref("benchmark_tables").df(),
                         dbt.config.get("eval_models"), dbt.config.get("seed"))
    done = set()
    if dbt.is_incremental:
        done = {row[0] for row in session.sql(f"select cache_key from {dbt.this}").fetchall()}
    return predict(inputs.specs, inputs.requests, done, store_path(dbt.config.get("eval_cache_dir")))
