"""Real-world HCTs of the HCT-QA release (var hctqa_release_dir); no rows when the var is unset."""
from evaluation_py.real_import import TABLE_COLUMNS, load_release_or_empty


def model(dbt, session):
    dbt.config(materialized="table")
    tables, _ = load_release_or_empty(dbt.config.get("hctqa_release_dir"))
    return tables[list(TABLE_COLUMNS)]
