"""The spread of each model's scores across builds of several seeds (var seed_variance_seeds; `hctqa seeds` builds
them, each in its own database) beside the within-build interval of eval_leaderboard
(evaluation_py.analysis.seed_variance). Empty without the var."""
from evaluation_py.analysis.seed_variance import as_arrow, seed_leaderboards, seed_variance
from evaluation_py.dbt_glue.evaluation_inputs import store_path
from evaluation_py.running.results import ResultsIndex
from generator_py.dbt_glue.build_config import FINGERPRINT_COLUMN, database_path, fingerprint_for_seed, fingerprint_of
from generator_py.dbt_glue.vars import seed_variance_seeds_var

import pandas as pd
import pyarrow as pa
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    config = dbt.ref("stg_build_config")

    def eval_leaderboard():  # never called: the ref runs this model after eval_leaderboard, which records this
        return dbt.ref("eval_leaderboard")  # build's own leaderboard in the store that the model reads below

    seeds = seed_variance_seeds_var(dbt.config.get("seed_variance_seeds"))
    out = seed_variance(pd.DataFrame(), [])
    if seeds:
        row = frame(config).iloc[0]
        fingerprints = {s: fingerprint_for_seed(row, s) for s in seeds}
        with ResultsIndex(store_path(dbt.config.get("eval_cache_dir"), database_path(session))) as index:
            recorded = index.leaderboards(fingerprints.values())
        out = seed_variance(seed_leaderboards(recorded, fingerprints), seeds)
    table = as_arrow(out)  # typed columns, rows or none
    return table.append_column(FINGERPRINT_COLUMN, pa.array([fingerprint_of(config)] * table.num_rows, pa.string()))
