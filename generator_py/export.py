"""Export the benchmark: two Parquet files and the HCT-QA release's `qaps` JSON layout.

`write_exports(out_dir, tables, questions)` writes, into `out_dir`:

- `benchmark_tables.parquet`, `benchmark_questions.parquet`: the two marts as given (all their
  columns, in their order), rows sorted by `table_id` / `question_id` (`parquet_export`);
- `hctqa_qaps.json`: the layout of the release's `realWorld_HCT_qaps.json`, so that tooling
  written for the release reads our benchmark unchanged (`release.qaps_write`).

Plain Python: no dbt imports.
"""
from __future__ import annotations

from pathlib import Path
from typing import Union

import pandas as pd

from .mart_frame import sorted_by_id
from .parquet_export import arrow_table, write_parquet
from .release.properties import (
    NUMERIC_QUESTION_PROPERTY_COLUMNS,
    QUESTION_PROPERTY_COLUMNS,
    TABLE_PROPERTY_COLUMNS,
)
from .release.qaps_write import build_qaps, write_qaps

TABLES_PARQUET = "benchmark_tables.parquet"
QUESTIONS_PARQUET = "benchmark_questions.parquet"
QAPS_JSON = "hctqa_qaps.json"

_NUMERIC_QUESTION_COLUMNS = frozenset(NUMERIC_QUESTION_PROPERTY_COLUMNS)
_BOOL_QUESTION_COLUMNS = frozenset(QUESTION_PROPERTY_COLUMNS) - _NUMERIC_QUESTION_COLUMNS


def write_exports(out_dir: Union[str, Path], tables: pd.DataFrame, questions: pd.DataFrame) -> list[Path]:
    """Write the two Parquet files and `hctqa_qaps.json` into `out_dir` (created if needed).

    Returns the paths written: [tables parquet, questions parquet, qaps JSON]. Raises ValueError
    for missing columns, duplicate / null ids, questions of unknown tables, or property values
    that are not booleans / integers.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    qaps = build_qaps(tables, questions)  # validates both frames first

    tables_arrow = arrow_table(sorted_by_id(tables, "table_id"), frozenset(TABLE_PROPERTY_COLUMNS), frozenset(),
                               "tables")
    questions_arrow = arrow_table(sorted_by_id(questions, "question_id"), _BOOL_QUESTION_COLUMNS,
                                  _NUMERIC_QUESTION_COLUMNS, "questions")

    paths = [out / TABLES_PARQUET, out / QUESTIONS_PARQUET, out / QAPS_JSON]
    write_parquet(tables_arrow, paths[0])
    write_parquet(questions_arrow, paths[1])
    write_qaps(qaps, paths[2])
    return paths
