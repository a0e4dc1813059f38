"""What the registries hold, one row per registered thing (evaluation_py.registries): the names data tests
and e2e tests read instead of lists of their own."""
import pandas as pd

from evaluation_py.registries import CATALOG_COLUMNS, catalog_rows


def model(dbt, session):
    dbt.config(materialized="table")
    dbt.ref("stg_build_config")  # after the gate: no table is replaced before every input is checked
    return pd.DataFrame(catalog_rows(), columns=list(CATALOG_COLUMNS))
