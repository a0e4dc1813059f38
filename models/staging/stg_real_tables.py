"""Real-world HCTs of the HCT-QA release (var hctqa_release_dir); no rows when the var is unset.

Renderings are left to int_table_renderings, which renders every table's grid; `release_csv` is the
release's CSV as given, from which stg_real_table_cells reads the grid.
"""
from generator_py.release.real_import import TABLE_COLUMNS, load_release_or_empty
from generator_py.render.registry import format_names


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("stg_build_config")  # after the gate, which has read and checked the release once
    tables, _ = load_release_or_empty(dbt.config.get("hctqa_release_dir"), renderings=False)
    renderings = set(format_names(text_only=True))
    return tables[[c for c in TABLE_COLUMNS if c not in renderings]]
