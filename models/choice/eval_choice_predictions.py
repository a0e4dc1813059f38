"""The two-option items (benchmark_choice_items) asked of every eval_models entry with `choice_items`,
in both option orders: one row per model x item x order, scored from the text and, where the backend
has them, from the first token's log-probabilities. In the accumulate scope (var eval_scope) the rows
of models asked by earlier builds of this benchmark stay (evaluation_py.running.results).

In its own folder, not models/evaluation: a build of `--select models/evaluation` on a benchmark
without benchmark_choice_items (the free-text evaluation alone) does not need the items."""
from evaluation_py.dbt_glue.choice_inputs import choice_predictions_from_relations
from evaluation_py.dbt_glue.evaluation_inputs import store_path
from generator_py.dbt_glue.build_config import database_path, fingerprint_of, stamp


def model(dbt, session):
    dbt.config(materialized="table")
    config = dbt.ref("stg_build_config")
    out = choice_predictions_from_relations(dbt.ref("benchmark_choice_items"), dbt.ref("benchmark_tables"),
                                            dbt.config.get("eval_models"), dbt.config.get("seed"),
                                            store_path(dbt.config.get("eval_cache_dir"), database_path(session)),
                                            fingerprint_of(config), dbt.config.get("eval_scope"),
                                            dbt.config.get("eval_remove_models"))
    return stamp(out, config)
