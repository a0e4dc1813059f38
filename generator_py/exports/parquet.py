"""The marts as Parquet files whose bytes depend only on their content.

All columns in their order, no pandas index, no pandas schema metadata, zstd, fixed row-group
size: writing the same frame twice gives identical files (the pyarrow version, which the footer
names, aside).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .mart_frame import as_bool, as_int

PARQUET_ROW_GROUP_SIZE = 4096
PARQUET_COMPRESSION = "zstd"
PARQUET_COMPRESSION_LEVEL = 3


def arrow_table(frame: pd.DataFrame, bool_columns: frozenset, int_columns: frozenset, name: str) -> pa.Table:
    """`frame` as an Arrow table: `bool_columns` as booleans, `int_columns` as int64, the rest as they are."""
    arrays = []
    for column in frame.columns:
        series = frame[column]
        where = f"{name}.{column}"
        if column in bool_columns:
            if series.dtype == bool:  # no missing values, nothing to check
                arrays.append(pa.array(series.to_numpy(), type=pa.bool_()))
            else:
                arrays.append(pa.array([as_bool(v, where) for v in series], type=pa.bool_()))
        elif column in int_columns:
            if pd.api.types.is_integer_dtype(series.dtype):
                arrays.append(pa.array(series, type=pa.int64(), from_pandas=True))
            else:
                arrays.append(pa.array([as_int(v, where) for v in series], type=pa.int64()))
        else:
            array = pa.Array.from_pandas(series)
            # pandas' `str` / `string` dtypes give large_string, object columns give string: one
            # type for both, so the bytes do not depend on how the frame stored its text.
            if pa.types.is_large_string(array.type):
                array = array.cast(pa.string())
            arrays.append(array)
    # Built from arrays: no pandas metadata (which names library versions) in the schema.
    return pa.Table.from_arrays(arrays, names=[str(c) for c in frame.columns])


def normalized_arrow(table: pa.Table, bool_columns: frozenset, int_columns: frozenset, name: str) -> pa.Table:
    """An Arrow table (as DuckDB hands a mart over) with the columns `arrow_table` makes of the same rows read as
    a frame: `bool_columns` booleans, `int_columns` int64, text as `string`, decimals as float64, a list's values named `item`, every field
    nullable and no schema metadata, so the Parquet bytes do not depend on which way the rows came."""
    arrays = []
    for column, array in zip(table.column_names, table.columns):
        where = f"{name}.{column}"
        kind = array.type
        if column in bool_columns and not pa.types.is_boolean(kind):
            array = pa.array([as_bool(v, where) for v in array.to_pylist()], type=pa.bool_())
        elif column in int_columns and not pa.types.is_int64(kind):
            if pa.types.is_integer(kind):
                array = array.cast(pa.int64())
            else:
                array = pa.array([as_int(v, where) for v in array.to_pylist()], type=pa.int64())
        elif pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
            array = array.cast(pa.string())
        elif pa.types.is_decimal(kind):  # a frame reads a DECIMAL (a SUM of integers) as float64
            array = array.cast(pa.float64())
        elif pa.types.is_list(kind) and kind.value_field.name != "item":  # DuckDB names a list's values `l`
            array = array.cast(pa.list_(kind.value_type))
        arrays.append(array)
    return pa.Table.from_arrays(arrays, names=[str(c) for c in table.column_names])


def write_parquet(parts: Iterable[pa.Table], schema: pa.Schema, path: Path) -> None:
    """The rows of `parts` (Arrow tables of `schema`, in order, of any sizes) as the file `path`, written a row
    group at a time as they come: the bytes `parquet_bytes` gives for all of them, without them all in memory."""
    with pq.ParquetWriter(path, schema, compression=PARQUET_COMPRESSION,
                          compression_level=PARQUET_COMPRESSION_LEVEL, write_statistics=True) as writer:
        held: list[pa.Table] = []
        n_held = 0
        wrote = False
        for part in parts:
            held.append(part)
            n_held += part.num_rows
            while n_held >= PARQUET_ROW_GROUP_SIZE:
                rows = pa.concat_tables(held)
                # one contiguous chunk per row group: the writer cuts pages where the arrays' chunks end too
                writer.write_table(rows.slice(0, PARQUET_ROW_GROUP_SIZE).combine_chunks(),
                                   row_group_size=PARQUET_ROW_GROUP_SIZE)
                wrote = True
                held, n_held = [rows.slice(PARQUET_ROW_GROUP_SIZE)], n_held - PARQUET_ROW_GROUP_SIZE
        if n_held or not wrote:  # the last rows; no rows at all: an empty table, written once
            rows = pa.concat_tables(held) if held else schema.empty_table()
            writer.write_table(rows.combine_chunks(), row_group_size=PARQUET_ROW_GROUP_SIZE)


def parquet_bytes(table: pa.Table) -> bytes:
    """`table` as Parquet bytes: zstd, fixed row groups, no pandas metadata (compressed: small beside the
    frames they come from)."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, row_group_size=PARQUET_ROW_GROUP_SIZE, compression=PARQUET_COMPRESSION,
                   compression_level=PARQUET_COMPRESSION_LEVEL, write_statistics=True)
    return sink.getvalue().to_pybytes()


def replace_if_changed(data: bytes, path: Path) -> bool:
    """Write `data` to `path` atomically unless the file holds those bytes already; True when written.

    A rebuild with nothing changed then leaves an export file as it was (its modification time too)."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except OSError:
        pass
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return True


def replace_with_if_changed(tmp: Path, path: Path) -> bool:
    """Move the finished file `tmp` onto `path` unless `path` holds the same bytes (then `tmp` is dropped and
    `path` keeps its modification time); True when replaced. For files streamed to disk as they are made."""
    try:
        if path.stat().st_size == tmp.stat().st_size and _same_bytes(tmp, path):
            tmp.unlink()
            return False
    except OSError:
        pass
    os.replace(tmp, path)
    return True


def _same_bytes(a: Path, b: Path, block: int = 1 << 20) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(block), fb.read(block)
            if x != y:
                return False
            if not x:
                return True
