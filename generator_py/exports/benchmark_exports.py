"""Export the benchmark: two Parquet files and the HCT-QA release's `qaps` JSON layout.

`write_exports(out_dir, tables, questions, image_paths)` writes, into `out_dir`:

- `benchmark_tables.parquet`, `benchmark_questions.parquet`: the two marts' original rows (all their
  columns, in their order), sorted by `table_id` / `question_id` (`parquet_export`);
- `hctqa_qaps.json`: those in the layout of the release's `realWorld_HCT_qaps.json`, so that tooling
  written for the release reads our benchmark unchanged (`release.qaps_write`); each table's
  `table_image_local_path` is its PNG relative to `out_dir` when `image_paths` has one;
- the obfuscated twins (rows whose `variant` is `obfuscated`), when there are any, in files of their own:
  `benchmark_tables_obfuscated.parquet`, `benchmark_questions_obfuscated.parquet`,
  `hctqa_qaps_obfuscated.json` (a user of the originals filters nothing out); without twins those
  files of an earlier export are removed.

A file whose new bytes equal the file already there is not replaced (a rebuild with nothing changed
leaves every file, and its modification time, as it was).

Plain Python: no dbt imports.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional, Union

import pandas as pd

from .mart_frame import sorted_by_id
from .parquet import arrow_table, parquet_bytes, replace_if_changed
from ..release.properties import (
    NUMERIC_QUESTION_PROPERTY_COLUMNS,
    QUESTION_PROPERTY_COLUMNS,
    TABLE_PROPERTY_COLUMNS,
)
from ..release.qaps_write import build_qaps, qaps_bytes

TABLES_PARQUET = "benchmark_tables.parquet"
QUESTIONS_PARQUET = "benchmark_questions.parquet"
QAPS_JSON = "hctqa_qaps.json"
TWIN_SUFFIX = "_obfuscated"  # the twins' files: benchmark_tables_obfuscated.parquet, ...

_NUMERIC_QUESTION_COLUMNS = frozenset(NUMERIC_QUESTION_PROPERTY_COLUMNS)
_BOOL_QUESTION_COLUMNS = frozenset(QUESTION_PROPERTY_COLUMNS) - _NUMERIC_QUESTION_COLUMNS


def twin_name(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem}{TWIN_SUFFIX}{dot}{ext}"


def _is_twin(frame: pd.DataFrame) -> pd.Series:
    if "variant" not in frame.columns:
        return pd.Series(False, index=frame.index)
    return (frame["variant"] == "obfuscated").fillna(False).astype(bool)


def write_exports(out_dir: Union[str, Path], tables: pd.DataFrame, questions: pd.DataFrame,
                  image_paths: Optional[Mapping[str, str]] = None) -> list[Path]:
    """Write the Parquet files and the qaps JSON of the originals, then of the twins (when any), into
    `out_dir` (created if needed). `image_paths`: table_id -> its PNG relative to `out_dir`.

    Returns the paths of the export: [tables parquet, questions parquet, qaps JSON], then the twins'
    three. Raises ValueError for missing columns, duplicate / null ids, questions of unknown tables, or
    property values that are not booleans / integers; nothing is written before every frame is checked.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    twin_tables, twin_questions = _is_twin(tables), _is_twin(questions)
    parts = [("", tables[~twin_tables], questions[~twin_questions])]
    if twin_tables.any() or twin_questions.any():
        parts.append((TWIN_SUFFIX, tables[twin_tables], questions[twin_questions]))
    built = []
    for suffix, t, q in parts:  # every part checked and built before the first file is written
        qaps = build_qaps(t, q)  # validates both frames first
        if image_paths:
            for entry in qaps:
                entry["table_info"]["table_image_local_path"] = image_paths.get(entry["table_id"])
        tables_arrow = arrow_table(sorted_by_id(t, "table_id"), frozenset(TABLE_PROPERTY_COLUMNS), frozenset(),
                                   "tables")
        questions_arrow = arrow_table(sorted_by_id(q, "question_id"), _BOOL_QUESTION_COLUMNS,
                                      _NUMERIC_QUESTION_COLUMNS, "questions")
        built.append((suffix, tables_arrow, questions_arrow, qaps))
    paths = []
    for suffix, tables_arrow, questions_arrow, qaps in built:
        names = [TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON]
        names = [twin_name(n) for n in names] if suffix else names
        here = [out / n for n in names]
        replace_if_changed(parquet_bytes(tables_arrow), here[0])
        replace_if_changed(parquet_bytes(questions_arrow), here[1])
        replace_if_changed(qaps_bytes(qaps), here[2])
        paths += here
    if len(built) == 1:  # no twins now: an earlier export's twin files are stale
        for name in (TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON):
            (out / twin_name(name)).unlink(missing_ok=True)
    return paths
