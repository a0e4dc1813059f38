"""The fine-tuning split of every table (train / validation / test), a seeded function of its original table."""
from evaluation_py.exports.finetune_splits import ORIGINAL_COLUMN, parse_fractions, table_splits
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import parse_config, seed_var


def model(dbt, session):
    dbt.config(materialized="table")
    tables = dbt.ref("benchmark_tables")
    # a variant names its original (the obfuscated tables); without that column every table is an original
    columns = "table_id" + (f", {ORIGINAL_COLUMN}" if ORIGINAL_COLUMN in tables.columns else "")
    fractions = parse_fractions(parse_config(dbt.config.get("finetune_split_fractions")))
    splits = table_splits(tables.project(columns).df(), seed_var(dbt.config.get("seed")), fractions)
    return stamp(splits, dbt.ref("stg_build_config"))
