"""Writes the benchmark as files other tools read (Parquet, and JSON in the HCT-QA release's qaps layout);
originals and obfuscated twins in files of their own, unchanged files left as they are."""
import pandas as pd

from generator_py.dbt_glue.build_config import built_relation, database_path, output_dir, stamp
from generator_py.exports.benchmark_exports import (TWIN_SUFFIX, commit, discard, stage_part, staging_folder,
                                                    write_staged_part)
from generator_py.core.child_process import in_child_process

# the originals' rows, then the twins' (a row without a variant is an original, as write_exports reads it)
PARTS = (("", "variant is distinct from 'obfuscated'"), (TWIN_SUFFIX, "variant = 'obfuscated'"))


def model(dbt, session):
    dbt.config(materialized="table")
    out_dir = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
    config = dbt.ref("stg_build_config")

    def benchmark_table_images():  # a nested def: dbt reads a Python model's refs there, not in a lambda
        return dbt.ref("benchmark_table_images")

    # each table's PNG (relative to the exports folder) when this build's configuration drew them (tag images)
    images = built_relation(benchmark_table_images, config)
    image_paths = dict(images.project("table_id, path").fetchall()) if images is not None else None
    tables, questions = dbt.ref("benchmark_tables"), dbt.ref("benchmark_questions")
    paths = []
    try:
        for suffix, where in PARTS:
            part_tables, part_questions = tables.filter(where), questions.filter(where)
            if suffix and not part_tables.aggregate("count(*)").fetchall()[0][0] \
                    and not part_questions.aggregate("count(*)").fetchall()[0][0]:
                break  # no twins in this build: commit removes an earlier export's twin files
            # DuckDB writes the part's rows, sorted, into staging files; a child process streams them into the
            # export's files (the other models' Python work goes on meanwhile): no process holds the part
            staged = stage_part(part_tables, part_questions, staging_folder(out_dir) / (suffix or "originals"))
            paths += in_child_process(write_staged_part, str(out_dir), suffix, staged, image_paths)
    except BaseException:
        discard(out_dir)
        raise
    commit(out_dir, paths)
    files = pd.DataFrame({"path": [str(p) for p in paths], "bytes": [p.stat().st_size for p in paths]})
    return stamp(files, config)
