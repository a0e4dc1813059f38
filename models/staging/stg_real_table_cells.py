"""The cell grid of every real-world table: one row per anchored cell, read from the release's CSV."""
import pandas as pd

from generator_py.grid.relation import GRID_COLUMNS, grid_rows
from generator_py.grid.release_csv import grid_from_release_csv
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    tables = frame(dbt.ref("stg_real_tables").project("table_id, release_csv"))
    rows = []
    for table_id, csv_text in zip(tables["table_id"], tables["release_csv"]):
        rows.extend(grid_rows(table_id, "real", grid_from_release_csv(csv_text)))
    grid = pd.DataFrame(rows, columns=list(GRID_COLUMNS))
    return grid.astype({"grid_row": "int64", "grid_col": "int64", "rowspan": "int64", "colspan": "int64",
                        "role": "object", "text": "object", "is_aggregate": "bool", "caption": "object",
                        "borders": "bool", "header_rows": "int64", "header_columns": "int64"})
