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

The files are written as the rows stream past (Parquet a row group at a time, the JSON a few hundred tables
at a time, each table with its questions), checked on the way (required columns, ids neither null nor
repeated, every question's table there), into temporary files, which replace the export's only once all six
are complete: a bad value met on the way leaves the export as it was. A file whose new bytes equal the file
already there is not replaced (a rebuild with nothing changed leaves every file, and its modification time,
as it was).

A caller holding the marts in a database writes the export a part at a time (the originals, then the twins,
then `commit`; `discard` on failure): `stage_part` has DuckDB write a part's rows, in the orders the files
take them, into Parquet files of a staging folder, and `write_staged_part` streams them into the export, so
no process holds a part's rows (GBs at 10x scale). `write_exports` writes rows it is given whole the same way.

Plain Python and DuckDB relations: no dbt imports.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Optional, Union

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .mart_frame import check_columns, id_order
from .parquet import PARQUET_ROW_GROUP_SIZE, arrow_table, normalized_arrow, replace_with_if_changed, write_parquet
from ..release.properties import TABLE_PROPERTY_COLUMNS
from ..release.qaps_write import (QAPS_QUESTION_COLUMNS, QAPS_SEPARATOR, QUESTION_BOOL_COLUMNS, QUESTION_INT_COLUMNS,
                                  REQUIRED_QUESTION_COLUMNS, REQUIRED_TABLE_COLUMNS, qaps_entry, qaps_entry_text,
                                  qaps_table_columns, question_entry_texts)

TABLES_PARQUET = "benchmark_tables.parquet"
QUESTIONS_PARQUET = "benchmark_questions.parquet"
QAPS_JSON = "hctqa_qaps.json"
TWIN_SUFFIX = "_obfuscated"  # the twins' files: benchmark_tables_obfuscated.parquet, ...
QAPS_BATCH = 256  # tables whose entries are made and written at a time (each carries its table's texts)
STAGING_DIR = ".staging"  # beside the export's files: a part's rows as DuckDB wrote them (stage_part)

_TABLE_BOOLS = frozenset(TABLE_PROPERTY_COLUMNS)
_QAPS_QUESTION_COLUMNS = tuple(dict.fromkeys(QAPS_QUESTION_COLUMNS))


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


def _with_null_text(table: pa.Table, null_text: frozenset) -> pa.Table:
    """The text columns named in `null_text` (no value anywhere in the part) typed as Arrow's null, as a frame's
    empty column converts: the Parquet files are the same whichever way the rows came."""
    for i, name in enumerate(table.column_names):
        if name in null_text:
            table = table.set_column(i, name, pa.nulls(table.num_rows))
    return table


def _null_text_columns(table: pa.Table) -> frozenset:
    return frozenset(name for name, column in zip(table.column_names, table.columns)
                     if pa.types.is_string(column.type) and column.null_count == len(column))


def _by_id(table: pa.Table, id_column: str) -> pa.Table:
    """Rows ordered by the id's text; a table already in that order is not copied."""
    order = id_order(table[id_column].to_pylist())
    return table if order == list(range(len(order))) else table.take(pa.array(order, pa.int64()))


class _IdsInOrder:
    """Checks the ids of rows streaming past in id order: none null, none repeated (a repeated id comes right
    after its first), each after the one before by its text."""

    def __init__(self, column: str, name: str):
        self.column, self.name, self.last = column, name, None

    def __call__(self, rows: pa.Table) -> pa.Table:
        for value in rows[self.column].to_pylist():
            if value is None:
                raise ValueError(f"{self.name}: null {self.column}")
            key = str(value)
            if self.last is not None and key <= self.last:
                if key == self.last:
                    raise ValueError(f"{self.name}: duplicate {self.column} {[key]}")
                raise ValueError(f"{self.name}: {self.column} {key!r} comes after {self.last!r}: rows not in id order")
            self.last = key
        return rows


@dataclass
class _PartRows:
    """One part's rows as the export streams them: each a function giving Arrow tables (normalized as
    `_as_arrow` makes them) in the files' order: `tables` by table_id, `questions` by question_id,
    `qaps_questions` (the qaps columns) by table_id then question_id; the `empty_*` tables give the schemas."""

    tables: Callable[[], Iterator[pa.Table]]
    questions: Callable[[], Iterator[pa.Table]]
    qaps_questions: Callable[[], Iterator[pa.Table]]
    empty_tables: Callable[[], pa.Table]
    empty_questions: Callable[[], pa.Table]


def _rows_in_memory(tables: pa.Table, questions: pa.Table) -> _PartRows:
    """A part given whole (normalized Arrow tables, any row order)."""
    tables = _with_null_text(tables, _null_text_columns(tables))
    questions = _with_null_text(questions, _null_text_columns(questions))
    check_columns(tables.column_names, REQUIRED_TABLE_COLUMNS, "tables")
    check_columns(questions.column_names, REQUIRED_QUESTION_COLUMNS, "questions")
    tables, questions = _by_id(tables, "table_id"), _by_id(questions, "question_id")

    def qaps_questions():  # stable: a table's questions stay in question_id order
        rows = questions.select(list(_QAPS_QUESTION_COLUMNS))
        yield rows.take(pa.array(id_order(rows["table_id"].to_pylist()), pa.int64()))

    return _PartRows(lambda: iter([tables]), lambda: iter([questions]), qaps_questions, lambda: tables.slice(0, 0),
                     lambda: questions.slice(0, 0))


def _write_part_rows(out: Path, suffix: str, rows: _PartRows, image_paths: Optional[Mapping[str, str]]) -> list[Path]:
    """Write one part's three files as temporary files, checking the rows as they pass (their columns were checked
    before they were read: `_rows_in_memory`, `stage_part`); the paths they replace at `commit`."""
    out.mkdir(parents=True, exist_ok=True)
    here = _paths(out, suffix)
    try:
        qaps = _QapsWriter(_tmp(here[2]), rows.qaps_questions(),
                           qaps_table_columns(rows.empty_tables().column_names), image_paths)
        try:
            tables = map(_IdsInOrder("table_id", "tables"), rows.tables())
            write_parquet(map(qaps.add, tables), rows.empty_tables().schema, _tmp(here[0]))
            qaps.close()
        finally:
            qaps.file.close()
        write_parquet(map(_IdsInOrder("question_id", "questions"), rows.questions()), rows.empty_questions().schema,
                      _tmp(here[1]))
    except BaseException:
        for path in here:
            _tmp(path).unlink(missing_ok=True)
        raise
    return here


class _QapsWriter:
    """The release's qaps JSON of the tables handed to `add` (in table_id order) and of `questions` (Arrow tables
    of the qaps question columns in table_id, question_id order), written QAPS_BATCH tables at a time: the bytes
    of `qaps_bytes(build_qaps(...))`. A question whose table never comes is an error naming it."""

    def __init__(self, path: Path, questions: Iterator[pa.Table], table_columns: tuple[str, ...],
                 image_paths: Optional[Mapping[str, str]]):
        self.file = open(path, "w", encoding="utf-8", newline="\n")
        self.file.write("[")
        self.wrote = False
        self.table_columns = list(dict.fromkeys(table_columns))
        self.image_paths = image_paths
        # (table_id, question_id, entry text) of each question: the texts made a part at a time
        self.questions = (row for part in questions
                          for row in zip(part["table_id"].to_pylist(), part["question_id"].to_pylist(),
                                         question_entry_texts(part)))
        self.next_question = next(self.questions, None)

    def add(self, tables: pa.Table) -> pa.Table:
        columns = tables.select(self.table_columns)
        for start in range(0, tables.num_rows, QAPS_BATCH):
            entries = []
            for t in columns.slice(start, QAPS_BATCH).to_pylist():
                entry = qaps_entry(t, [])
                if self.image_paths:
                    entry["table_info"]["table_image_local_path"] = self.image_paths.get(entry["table_id"])
                entries.append(qaps_entry_text(entry, self._questions_of(entry["table_id"])))
            if entries:
                self.file.write((QAPS_SEPARATOR if self.wrote else "") + QAPS_SEPARATOR.join(entries))
                self.wrote = True
        return tables

    def _questions_of(self, table_id: str) -> list[str]:
        own = []
        while self.next_question is not None and str(self.next_question[0]) <= table_id:
            self._known(table_id)
            own.append(self.next_question[2])
            self.next_question = next(self.questions, None)
        return own

    def _known(self, table_id: str) -> None:
        tid, qid, _ = self.next_question
        if str(tid) != table_id:
            raise ValueError(f"questions: {qid}: table_id {str(tid)!r} is not in tables")

    def close(self) -> None:
        if self.next_question is not None:  # questions of tables after the last one
            self._known("")
        self.file.write("]\n")


def _tmp(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")


def _paths(out: Path, suffix: str) -> list[Path]:
    return [out / (twin_name(n) if suffix else n) for n in (TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON)]


def write_part(out_dir: Union[str, Path], suffix: str, tables: Union[pd.DataFrame, pa.Table],
               questions: Union[pd.DataFrame, pa.Table],
               image_paths: Optional[Mapping[str, str]] = None) -> list[Path]:
    """Check one part of the export (the originals, `suffix` "", or the twins, `suffix` TWIN_SUFFIX) and write
    its three files as temporary files beside the export's; returns the paths they replace at `commit`.
    `tables`, `questions`: the part's rows (frames or Arrow tables, in any order).
    Raises ValueError for missing columns, duplicate / null ids, questions of unknown tables, or property
    values that are not booleans / integers; then no temporary file of the part is left."""
    tables = _as_arrow(tables, _TABLE_BOOLS, frozenset(), "tables")
    questions = _as_arrow(questions, QUESTION_BOOL_COLUMNS, QUESTION_INT_COLUMNS, "questions")
    return _write_part_rows(Path(out_dir), suffix, _rows_in_memory(tables, questions), image_paths)


# the staged files of a part (stage_part): every column by id, and the qaps question columns by table
_STAGED_TABLES, _STAGED_QUESTIONS, _STAGED_QAPS_QUESTIONS = "tables.parquet", "questions.parquet", "qaps_questions.parquet"
_STAGED_ROW_GROUP = 8192  # rows per row group of a staged file: what the export's writer holds of it at a time


class StagedPart:
    """A part's rows written by DuckDB into a staging folder (`stage_part`), with the text columns that have no
    value in the part; what `write_staged_part` reads (picklable: it names files)."""

    def __init__(self, folder: Path, null_table_text: frozenset, null_question_text: frozenset):
        self.folder, self.null_table_text, self.null_question_text = folder, null_table_text, null_question_text


def stage_part(tables, questions, folder: Union[str, Path]) -> StagedPart:
    """Have DuckDB write one part's rows (`tables`, `questions`: DuckDB relations holding the part's rows) into
    Parquet files of `folder` (emptied first), in the orders the export reads them: DuckDB sorts and writes
    outside this process's Python objects, spilling to disk as it needs, so the rows are never held here."""
    check_columns(list(tables.columns), REQUIRED_TABLE_COLUMNS, "tables")
    check_columns(list(questions.columns), REQUIRED_QUESTION_COLUMNS, "questions")
    folder = Path(folder)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    # by the ids' text: the order _by_id gives rows handed over whole
    tables.order('"table_id"::varchar').to_parquet(str(folder / _STAGED_TABLES), row_group_size=_STAGED_ROW_GROUP)
    questions.order('"question_id"::varchar').to_parquet(str(folder / _STAGED_QUESTIONS),
                                                        row_group_size=_STAGED_ROW_GROUP)
    questions.project(", ".join(f'"{c}"' for c in _QAPS_QUESTION_COLUMNS)) \
        .order('"table_id"::varchar, "question_id"::varchar') \
        .to_parquet(str(folder / _STAGED_QAPS_QUESTIONS), row_group_size=_STAGED_ROW_GROUP)
    return StagedPart(folder, _null_text_of(tables), _null_text_of(questions))


def _null_text_of(relation) -> frozenset:
    """The text columns of a relation with no value in any row (all of them when it has no rows)."""
    text = [c for c, kind in zip(relation.columns, relation.types) if str(kind) == "VARCHAR"]
    if not text:
        return frozenset()
    counts = relation.aggregate(", ".join(f'count("{c}")' for c in text)).fetchall()[0]
    return frozenset(c for c, n in zip(text, counts) if n == 0)


def _staged_rows(part: StagedPart) -> _PartRows:
    def reader(name: str, bools: frozenset, ints: frozenset, null_text: frozenset, kind: str):
        path = part.folder / name

        def batches() -> Iterator[pa.Table]:
            for batch in pq.ParquetFile(path).iter_batches(batch_size=PARQUET_ROW_GROUP_SIZE):
                yield _with_null_text(normalized_arrow(pa.Table.from_batches([batch]), bools, ints, kind), null_text)

        def empty() -> pa.Table:
            return _with_null_text(normalized_arrow(pq.read_schema(path).empty_table(), bools, ints, kind), null_text)

        return batches, empty

    tables, empty_tables = reader(_STAGED_TABLES, _TABLE_BOOLS, frozenset(), part.null_table_text, "tables")
    questions, empty_questions = reader(_STAGED_QUESTIONS, QUESTION_BOOL_COLUMNS, QUESTION_INT_COLUMNS,
                                        part.null_question_text, "questions")
    qaps_questions, _ = reader(_STAGED_QAPS_QUESTIONS, QUESTION_BOOL_COLUMNS, QUESTION_INT_COLUMNS,
                               part.null_question_text, "questions")
    return _PartRows(tables, questions, qaps_questions, empty_tables, empty_questions)


def write_staged_part(out_dir: Union[str, Path], suffix: str, part: StagedPart,
                      image_paths: Optional[Mapping[str, str]] = None) -> list[Path]:
    """`write_part` of the rows `stage_part` staged, read a row group at a time; the staging folder is removed."""
    try:
        return _write_part_rows(Path(out_dir), suffix, _staged_rows(part), image_paths)
    finally:
        shutil.rmtree(part.folder, ignore_errors=True)


def staging_folder(out_dir: Union[str, Path]) -> Path:
    """Where a caller stages the parts of the export in `out_dir` (removed by `discard` and `commit`)."""
    return Path(out_dir) / STAGING_DIR


def commit(out_dir: Union[str, Path], paths: list[Path]) -> None:
    """Put the parts `write_part` wrote (`paths`, as it returned them) in place of the export's files, each
    only when its bytes changed; without twins among them, an earlier export's twin files are removed."""
    for path in paths:
        replace_with_if_changed(_tmp(path), path)
    out = Path(out_dir)
    shutil.rmtree(staging_folder(out), ignore_errors=True)
    if not any(path.name == twin_name(QAPS_JSON) for path in paths):  # no twins now: an earlier export's are stale
        for path in _paths(out, TWIN_SUFFIX):
            path.unlink(missing_ok=True)


def discard(out_dir: Union[str, Path]) -> None:
    """Remove the temporary files of an export that failed part way; the export's files stay as they were."""
    out = Path(out_dir)
    for path in _paths(out, "") + _paths(out, TWIN_SUFFIX):
        _tmp(path).unlink(missing_ok=True)
    shutil.rmtree(staging_folder(out), ignore_errors=True)


def write_exports(out_dir: Union[str, Path], tables: Union[pd.DataFrame, pa.Table],
                  questions: Union[pd.DataFrame, pa.Table], image_paths: Optional[Mapping[str, str]] = None) -> list[Path]:
    """Write the Parquet files and the qaps JSON of the originals, then of the twins (when any), into
    `out_dir` (created if needed). `tables`, `questions`: the marts' rows, frames or Arrow tables, in any
    order; `image_paths`: table_id -> its PNG relative to `out_dir`.

    Returns the paths of the export: [tables parquet, questions parquet, qaps JSON], then the twins'
    three. Raises ValueError as `write_part` does; no file of the export is replaced before every file is
    written whole.
    """
    tables = _as_arrow(tables, _TABLE_BOOLS, frozenset(), "tables")
    questions = _as_arrow(questions, QUESTION_BOOL_COLUMNS, QUESTION_INT_COLUMNS, "questions")
    twin_tables, twin_questions = _is_twin(tables), _is_twin(questions)
    if pc.any(twin_tables).as_py() or pc.any(twin_questions).as_py():
        parts = [("", tables.filter(pc.invert(twin_tables)), questions.filter(pc.invert(twin_questions))),
                 (TWIN_SUFFIX, tables.filter(twin_tables), questions.filter(twin_questions))]
    else:  # no twins: the marts as they came, not a filtered copy of every column
        parts = [("", tables, questions)]
    del tables, questions, twin_tables, twin_questions
    paths: list[Path] = []
    try:
        for suffix, t, q in parts:  # already as their files hold them: not converted again by write_part
            paths += _write_part_rows(Path(out_dir), suffix, _rows_in_memory(t, q), image_paths)
    except BaseException:
        discard(out_dir)
        raise
    commit(out_dir, paths)
    return paths
