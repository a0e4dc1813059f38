"""One row per run x model of every build that asked anything, on any benchmark (column `fingerprint`):
start and end, the entries as given (secrets redacted), package versions, git commit, and the requests sent,
taken from the store and failed. Built last in the evaluation chain: it closes this run's record in the
prediction store and writes the run's results file, `<reports>/runs/<run_id>.json`, with its headline
(eval_leaderboard rows of its models, strict mode)."""
from evaluation_py.dbt_glue.evaluation_inputs import store_path
from evaluation_py.running.run_record import close_run, runs_table
from generator_py.dbt_glue.build_config import database_path, fingerprint_of, output_dir
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    requests = frame(dbt.ref("eval_requests").project("cache_key, model_name, this_build"))
    predictions = frame(dbt.ref("eval_predictions").project("cache_key, model_name, run_id"))
    errors = frame(dbt.ref("eval_prediction_errors").project("cache_key, model_name"))
    board = frame(dbt.ref("eval_leaderboard"))
    dbt.ref("eval_judgements"), dbt.ref("eval_executions")  # the run ends after its judge and code runs
    store = store_path(dbt.config.get("eval_cache_dir"), database_path(session))
    reports = output_dir(dbt.config.get("reports_dir"), database_path(session), "reports")
    close_run(store, reports / "runs", fingerprint_of(dbt.ref("stg_build_config")), requests, predictions, errors,
              board)
    return runs_table(store)
