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

The files are written as they are made (Parquet a row group at a time, the JSON a few hundred tables at a
time) into temporary files, which replace the export's only once all six are complete: a bad value met on
the way leaves the export as it was. A file whose new bytes equal the file already there is not replaced (a
rebuild with nothing changed leaves every file, and its modification time, as it was).

A caller holding the marts in a database writes the export a part at a time (`write_part` for the originals,
then for the twins, then `commit`; `discard` on failure), so only one part's rows are in memory at once;
`write_exports` does the same with rows it is given whole.

Plain Python: no dbt imports.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional, Union

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .parquet import arrow_table, normalized_arrow, replace_with_if_changed, write_parquet
from ..dbt_glue.relations import take_rows
from ..release.properties import (
    NUMERIC_QUESTION_PROPERTY_COLUMNS,
    QUESTION_PROPERTY_COLUMNS,
    TABLE_PROPERTY_COLUMNS,
)
from ..release.qaps_write import (QAPS_QUESTION_COLUMNS, QAPS_SEPARATOR, check_qaps_frames, qaps_entry, qaps_json,
                                  qaps_table_columns, question_entry)

TABLES_PARQUET = "benchmark_tables.parquet"
QUESTIONS_PARQUET = "benchmark_questions.parquet"
QAPS_JSON = "hctqa_qaps.json"
TWIN_SUFFIX = "_obfuscated"  # the twins' files: benchmark_tables_obfuscated.parquet, ...
QAPS_BATCH = 256  # tables whose entries are made and written at a time (each carries its table's texts)

_NUMERIC_QUESTION_COLUMNS = frozenset(NUMERIC_QUESTION_PROPERTY_COLUMNS)
_BOOL_QUESTION_COLUMNS = frozenset(QUESTION_PROPERTY_COLUMNS) - _NUMERIC_QUESTION_COLUMNS


def twin_name(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return f"{stem}{TWIN_SUFFIX}{dot}{ext}"


def _as_arrow(rows: Union[pd.DataFrame, pa.Table], bools: frozenset, ints: frozenset, name: str) -> pa.Table:
    """The mart's rows as the Arrow table its Parquet file holds (a frame's cells checked and converted)."""
    if isinstance(rows, pa.Table):
        return normalized_arrow(rows, bools, ints, name)
    return arrow_table(rows.reset_index(drop=True), bools, ints, name)


def _is_twin(table: pa.Table) -> pa.Array:
    if "variant" not in table.column_names:
        return pa.array([False] * table.num_rows, pa.bool_())
    return pc.fill_null(pc.equal(table["variant"], "obfuscated"), False)


def _by_id(table: pa.Table, id_column: str) -> pa.Table:
    """Rows ordered by the id's text (the exports' row order); a table already in that order is not copied."""
    keys = [str(k) for k in table[id_column].to_pylist()]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return table if order == list(range(len(keys))) else table.take(pa.array(order, pa.int64()))


def _null_text_as_null(table: pa.Table) -> pa.Table:
    """A text column with no value in this part typed as Arrow's null, as a frame's empty column converts: the
    Parquet files are the same whichever way the rows came."""
    for i, (name, column) in enumerate(zip(table.column_names, table.columns)):
        if pa.types.is_string(column.type) and column.null_count == len(column):
            table = table.set_column(i, name, pa.nulls(len(column)))
    return table


def _part(tables: pa.Table, questions: pa.Table) -> tuple[pa.Table, pa.Table]:
    """One part's tables and questions, checked (columns, ids, every question's table there) and by id."""
    tables, questions = _null_text_as_null(tables), _null_text_as_null(questions)
    check_qaps_frames(tables, questions)
    tables, questions = _by_id(tables, "table_id"), _by_id(questions, "question_id")
    known = pc.is_in(questions["table_id"], value_set=tables["table_id"].combine_chunks())
    if questions.num_rows and not pc.all(pc.fill_null(known, False)).as_py():  # (all() of no values is null)
        i = pc.index(pc.fill_null(known, False), False).as_py()
        raise ValueError(f"questions: {questions['question_id'][i].as_py()}: table_id "
                         f"{str(questions['table_id'][i].as_py())!r} is not in tables")
    return tables, questions


def _write_qaps(tables: pa.Table, questions: pa.Table, image_paths: Optional[Mapping[str, str]], path: Path) -> None:
    """The release's qaps JSON of these tables and questions (by id), written QAPS_BATCH tables at a time: the
    bytes of `qaps_bytes(build_qaps(...))`."""
    rows_of: dict[str, list[int]] = {}
    for i, table_id in enumerate(questions["table_id"].to_pylist()):
        rows_of.setdefault(str(table_id), []).append(i)
    question_columns = questions.select(list(dict.fromkeys(QAPS_QUESTION_COLUMNS)))
    table_columns = tables.select(list(dict.fromkeys(qaps_table_columns(tables.column_names))))
    wrote = False
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("[")
        for start in range(0, tables.num_rows, QAPS_BATCH):
            batch = table_columns.slice(start, QAPS_BATCH).to_pylist()
            rows = [rows_of.get(str(t["table_id"]), []) for t in batch]
            # the batch's questions in one read, then dealt out to their tables
            asked = iter(take_rows(question_columns, [i for r in rows for i in r]).to_pylist())
            entries = []
            for t, own in zip(batch, rows):
                entry = qaps_entry(t, [question_entry(next(asked)) for _ in own])
                if image_paths:
                    entry["table_info"]["table_image_local_path"] = image_paths.get(entry["table_id"])
                entries.append(entry)
            if entries:
                f.write((QAPS_SEPARATOR if wrote else "") + qaps_json(entries)[1:-1])
                wrote = True
        f.write("]\n")


def _tmp(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")


def _paths(out: Path, suffix: str) -> list[Path]:
    return [out / (twin_name(n) if suffix else n) for n in (TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON)]


def write_part(out_dir: Union[str, Path], suffix: str, tables: Union[pd.DataFrame, pa.Table],
               questions: Union[pd.DataFrame, pa.Table],
               image_paths: Optional[Mapping[str, str]] = None) -> list[Path]:
    """Check one part of the export (the originals, `suffix` "", or the twins, `suffix` TWIN_SUFFIX) and write
    its three files as temporary files beside the export's; returns the paths they replace at `commit`.
    `tables`, `questions`: the part's rows (frames or Arrow tables; read in id order, nothing is copied).
    Raises ValueError for missing columns, duplicate / null ids, questions of unknown tables, or property
    values that are not booleans / integers; then no temporary file of the part is left."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tables = _as_arrow(tables, frozenset(TABLE_PROPERTY_COLUMNS), frozenset(), "tables")
    questions = _as_arrow(questions, _BOOL_QUESTION_COLUMNS, _NUMERIC_QUESTION_COLUMNS, "questions")
    tables, questions = _part(tables, questions)
    here = _paths(out, suffix)
    try:
        write_parquet(tables, _tmp(here[0]))
        write_parquet(questions, _tmp(here[1]))
        _write_qaps(tables, questions, image_paths, _tmp(here[2]))
    except BaseException:
        for path in here:
            _tmp(path).unlink(missing_ok=True)
        raise
    return here


def commit(out_dir: Union[str, Path], paths: list[Path]) -> None:
    """Put the parts `write_part` wrote (`paths`, as it returned them) in place of the export's files, each
    only when its bytes changed; without twins among them, an earlier export's twin files are removed."""
    for path in paths:
        replace_with_if_changed(_tmp(path), path)
    out = Path(out_dir)
    if not any(path.name == twin_name(QAPS_JSON) for path in paths):  # no twins now: an earlier export's are stale
        for path in _paths(out, TWIN_SUFFIX):
            path.unlink(missing_ok=True)


def discard(out_dir: Union[str, Path]) -> None:
    """Remove the temporary files of an export that failed part way; the export's files stay as they were."""
    out = Path(out_dir)
    for path in _paths(out, "") + _paths(out, TWIN_SUFFIX):
        _tmp(path).unlink(missing_ok=True)


def write_exports(out_dir: Union[str, Path], tables: Union[pd.DataFrame, pa.Table],
                  questions: Union[pd.DataFrame, pa.Table], image_paths: Optional[Mapping[str, str]] = None) -> list[Path]:
    """Write the Parquet files and the qaps JSON of the originals, then of the twins (when any), into
    `out_dir` (created if needed). `tables`, `questions`: the marts' rows, frames or Arrow tables (read so from
    DuckDB, in id order, nothing is copied); `image_paths`: table_id -> its PNG relative to `out_dir`.

    Returns the paths of the export: [tables parquet, questions parquet, qaps JSON], then the twins'
    three. Raises ValueError as `write_part` does; no file of the export is replaced before every file is
    written whole.
    """
    tables = _as_arrow(tables, frozenset(TABLE_PROPERTY_COLUMNS), frozenset(), "tables")
    questions = _as_arrow(questions, _BOOL_QUESTION_COLUMNS, _NUMERIC_QUESTION_COLUMNS, "questions")
    twin_tables, twin_questions = _is_twin(tables), _is_twin(questions)
    if pc.any(twin_tables).as_py() or pc.any(twin_questions).as_py():
        parts = [("", tables.filter(pc.invert(twin_tables)), questions.filter(pc.invert(twin_questions))),
                 (TWIN_SUFFIX, tables.filter(twin_tables), questions.filter(twin_questions))]
    else:  # no twins: the marts as they came, not a filtered copy of every column
        parts = [("", tables, questions)]
    del tables, questions, twin_tables, twin_questions
    paths: list[Path] = []
    try:
        for suffix, t, q in parts:
            paths += write_part(out_dir, suffix, t, q, image_paths)
    except BaseException:
        discard(out_dir)
        raise
    commit(out_dir, paths)
    return paths
