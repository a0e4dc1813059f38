"""Writes the benchmark as files other tools read (Parquet, and JSON in the HCT-QA release's qaps layout)."""
import pandas as pd

from generator_py.build_config import database_path, output_dir, stamp
from generator_py.export import write_exports


def model(dbt, session):
    dbt.config(materialized="table")
    out_dir = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
    paths = write_exports(str(out_dir), dbt.ref("benchmark_tables").df(), dbt.ref("benchmark_questions").df())
    files = pd.DataFrame({"path": [str(p) for p in paths], "bytes": [p.stat().st_size for p in paths]})
    return stamp(files, dbt.ref("stg_build_config"))
