"""Writes the benchmark as files other tools read (Parquet, and JSON in the HCT-QA release's qaps layout);
originals and obfuscated twins in files of their own, unchanged files left as they are."""
import pandas as pd

from generator_py.dbt_glue.relations import arrow_table
from generator_py.dbt_glue.build_config import built_relation, database_path, output_dir, stamp
from generator_py.exports.benchmark_exports import write_exports
from generator_py.core.child_process import in_child_process


def model(dbt, session):
    dbt.config(materialized="table")
    out_dir = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
    config = dbt.ref("stg_build_config")

    def benchmark_table_images():  # a nested def: dbt reads a Python model's refs there, not in a lambda
        return dbt.ref("benchmark_table_images")

    # each table's PNG (relative to the exports folder) when this build's configuration drew them (tag images)
    images = built_relation(benchmark_table_images, config)
    image_paths = dict(images.project("table_id, path").fetchall()) if images is not None else None
    # read as Arrow in id order (the files' order, so nothing is copied to sort them): the child shares these
    # buffers untouched and makes the files a part at a time
    tables = arrow_table(dbt.ref("benchmark_tables").order("table_id"))
    questions = arrow_table(dbt.ref("benchmark_questions").order("question_id"))
    # the files are made in a child process: the other models' Python work goes on meanwhile
    paths = in_child_process(write_exports, str(out_dir), tables, questions, image_paths)
    files = pd.DataFrame({"path": [str(p) for p in paths], "bytes": [p.stat().st_size for p in paths]})
    return stamp(files, config)
