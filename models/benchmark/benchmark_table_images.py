"""A PNG of every table, drawn from its anchored cell grid, under <exports_dir>/images/<table_id>.png."""
from pathlib import Path

import pandas as pd

from generator_py.dbt_glue.build_config import database_path, output_dir, stamp
from generator_py.obfuscation import OBFUSCATED_SUFFIX
from generator_py.render.image import CELL_COLUMNS, tables_from_frames, write_table_images


def _image_tables(grid):
    """Every original table's ImageTable; the frames they are made from are freed on return, so the build holds
    only the tables while they are drawn."""
    # every table's grid, synthetic and real: the same cells the text renderers read; originals only (the
    # obfuscated twins would double the drawing time and the folder for a text-only experiment)
    grid = grid.filter(f"not suffix(table_id, '{OBFUSCATED_SUFFIX}')")
    cells = grid.project(", ".join(CELL_COLUMNS)).df()
    tables = grid.project("table_id, caption, borders").distinct().df()
    return tables_from_frames(cells, tables, "int_table_grid", "int_table_grid")


def model(dbt, session):
    dbt.config(materialized="table")
    exports = output_dir(dbt.config.get("exports_dir"), database_path(session), "exports")
    folder = exports / "images"
    # incremental (render.image's manifest): a table drawn as before is not drawn again
    written = write_table_images(_image_tables(dbt.ref("int_table_grid")), folder)
    images = pd.DataFrame({
        "table_id": [w.table_id for w in written],
        # relative to the exports folder: a moved folder still works
        "path": [Path(w.path).relative_to(exports).as_posix() for w in written],
        "width": pd.array([w.width for w in written], dtype="int32"),
        "height": pd.array([w.height for w in written], dtype="int32"),
        "sha256": [w.sha256 for w in written],
    })
    return stamp(images, dbt.ref("stg_build_config"))
