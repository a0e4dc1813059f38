"""Reading a DuckDB relation (what `dbt.ref` gives a Python model) as an Arrow table: the columns reach the
libraries without a pandas frame (a frame builds a Python object per text cell); or as a pandas frame by way of
Arrow (`frame`). No dbt imports."""
from __future__ import annotations

from typing import Iterable, Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def arrow_table(relation) -> pa.Table:
    """The relation's rows as one Arrow table (`to_arrow_table` from duckdb 1.4, `fetch_arrow_table` before)."""
    read = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return read()


def arrow_reader(relation, rows: int = 250_000) -> pa.RecordBatchReader:
    """The relation's rows as Arrow record batches of up to `rows` rows, read as they are used (`to_arrow_reader`
    from duckdb 1.4, `fetch_arrow_reader` before)."""
    read = getattr(relation, "to_arrow_reader", None) or relation.fetch_arrow_reader
    return read(rows)


def column_batches(relation, rows: int = 250_000):
    """The relation's rows in batches of about `rows`, each as {column: Python list}: a model walks a relation of
    millions of rows holding one batch of Python objects at a time."""
    for batch in arrow_reader(relation, rows):
        yield batch.to_pydict()


def whole_groups(relation, key: str, rows: int = 250_000):
    """The rows of `relation` (ordered so that the rows of each `key` value are together, as ordering by `key`
    does) as Arrow tables of about `rows` rows, each holding every row of its `key` values: a group cut by a
    batch boundary is held back and joined to the next batch's."""
    held = None
    for batch in arrow_reader(relation, rows):
        table = pa.Table.from_batches([batch])
        if held is not None:
            table = pa.concat_tables([held, table])
        if not table.num_rows:
            continue
        keys = table[key]
        cut = pc.index(keys, keys[-1]).as_py()  # where the last group starts: it may go on in the next batch
        if cut:
            yield table.slice(0, cut)
        held = table.slice(cut)
    if held is not None and held.num_rows:
        yield held


def whole_groups_apart(session, relation, key: str, order: str, rows: int = 250_000):
    """The rows of `relation` ordered by `order` (which starts with `key`), as Arrow tables of some `rows` rows
    each holding every row of its `key` values, read on a cursor of its own (the parts the model lands into
    DuckDB meanwhile, `landed`, do not end the read).

    Each part is its own query over a range of keys: DuckDB sorts a part's rows, never the whole relation at
    once (at 10x scale a sort of millions of rows held in the build's memory while the parts are used)."""
    reader = session.cursor()
    reader.execute("set enable_progress_bar = false")  # no bar of a long read in dbt's log at 10x scale
    query = relation.sql_query()
    counts = reader.sql(f"select {key}, count(*) from ({query}) group by {key} order by {key}").fetchall()
    if counts and counts[-1][0] is None:  # rows without a key (sorted last, as the whole order puts them)
        nulls, counts = counts[-1], counts[:-1]
    else:
        nulls = None
    start = 0
    while start < len(counts):
        end, held = start, 0
        while end < len(counts) and (held == 0 or held + counts[end][1] <= rows):
            held += counts[end][1]
            end += 1
        yield arrow_table(reader.sql(f"select * from ({query}) where {key} >= $1 and {key} <= $2 order by {order}",
                                     params=[counts[start][0], counts[end - 1][0]]))
        start = end
    if nulls is not None:
        yield arrow_table(reader.sql(f"select * from ({query}) where {key} is null order by {order}"))


def rows_scored(relation, scores, key: str):
    """The rows of `relation` whose `key` (question_id, table_id) some row of `scores` has, ordered by it: what an
    analysis of the scores looks up, not the whole mart (a frame of every question is GBs at 10x scale)."""
    return relation.join(scores.project(key).distinct().set_alias("scored"), key, how="semi").order(key)


# Arrow a model keeps in its own memory before its parts go to DuckDB instead: a default-scale build's relations
# fit, and stay one Arrow table as dbt-duckdb reads best; a larger one is written into DuckDB as it comes
HOLD_BYTES = 256 * 2**20


def landed(session, parts: Iterable[pa.Table], name: str, order_by: str = "", hold_bytes: int = HOLD_BYTES):
    """Arrow tables of one relation, made one after the other, handed back for dbt to materialize, with its
    rows sorted by the column `order_by` when given (parts that come sorted and in order are not sorted again).

    Up to `hold_bytes` of parts, the result is one Arrow table. Past that, the parts are written into a
    temporary table of the model's DuckDB session as they come, and the result is a relation reading it: the
    model's process holds a part at a time, DuckDB spills past its memory limit, and unlike a stream the
    relation can be read twice (the build memo hashes what a model returns). The table lives as long as the
    session, which dbt-duckdb opens for one Python model.

    The parts have the same columns in the same order; a column all NULL in a part may be typed null there
    (as pyarrow types a column of Nones): parts are held until every column has a type, and a later part's
    null column takes that type. A column typed differently in two parts is an error naming it."""
    temp = f"__landed_{name}"
    scan = f"{temp}_part"
    schema: Optional[pa.Schema] = None
    held: list[pa.Table] = []
    held_bytes = 0
    written = False
    in_order = True  # every row so far at or after the one before it, by `order_by`
    last = None

    def write(table: pa.Table) -> None:
        session.register(scan, table)
        try:
            session.execute(f"insert into {temp} select * from {scan}" if written
                            else f"create or replace temp table {temp} as select * from {scan}")
        finally:
            session.unregister(scan)

    for part in parts:
        if order_by and in_order and part.num_rows:
            keys = part[order_by].combine_chunks()
            in_order = (last is None or keys[0].as_py() >= last) and (
                part.num_rows < 2 or pc.all(pc.less_equal(keys.slice(0, len(keys) - 1), keys.slice(1))).as_py())
            last = keys[-1].as_py()
        if schema is not None:
            part = _typed_as(part, schema, name)
        held.append(part)
        held_bytes += part.nbytes
        if schema is None:
            merged = pa.unify_schemas([p.schema for p in held], promote_options="permissive")
            if not any(pa.types.is_null(f.type) for f in merged):
                schema = merged
                held = [p.cast(schema) for p in held]  # from here on every part held has the schema
        if schema is not None and held_bytes > hold_bytes:
            if not written:
                session.execute("set enable_progress_bar = false")  # no bar of a long insert in dbt's log
            write(pa.concat_tables(held))
            written, held, held_bytes = True, [], 0
    if not written:  # all of it in memory: one table (a column NULL in every part typed null, as concat types it)
        out = pa.concat_tables(held, promote_options="permissive") if held else pa.table({})
        return out.sort_by(order_by) if order_by and not in_order and out.num_rows else out
    if held:
        write(pa.concat_tables(held))
    if order_by and not in_order:  # sorted once into a table of its own: the memo's hash and dbt's copy read it
        session.execute(f"create or replace temp table {temp}_sorted as select * from {temp} order by {order_by}")
        session.execute(f"drop table {temp}")
        temp = f"{temp}_sorted"
    return session.sql(f"select * from {temp}")


def _typed_as(part: pa.Table, schema: pa.Schema, name: str) -> pa.Table:
    if part.schema.names != schema.names:
        raise ValueError(f"{name}: a part has the columns {part.schema.names}, the first parts {schema.names}")
    for got, want in zip(part.schema, schema):
        if got.type != want.type and not pa.types.is_null(got.type):
            raise ValueError(f"{name}: column {got.name} is {got.type} in a part, {want.type} in the first parts")
    return part.cast(schema)


# DuckDB's `.df()` reads an integer column as pandas' nullable integers; Arrow's own conversion gives floats
# with NaN where a value is missing
_NULLABLE_INTEGERS = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
                      pa.int64(): pd.Int64Dtype()}


def frame_of(table: pa.Table) -> pd.DataFrame:
    """Rows of an Arrow table (a part of what `arrow_table` read) as a frame with the column types the
    relation's `.df()` gives: a model reads a relation once as Arrow and makes frames of the parts it works on."""
    return table.to_pandas(types_mapper=_NULLABLE_INTEGERS.get)


def take_rows(table: pa.Table, indices) -> pa.Table:
    """`table.take(indices)`, a record batch at a time: Arrow's take on a table read in several batches joins
    all of them first, a copy of the whole table at every call (0.45 s for 2,000 rows of the choice items)."""
    idx = np.asarray(indices, dtype=np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= table.num_rows):
        raise IndexError(f"take_rows: index out of range for a table of {table.num_rows} rows")
    batches = table.to_batches()
    if len(batches) <= 1:
        return table.take(pa.array(idx, pa.int64()))
    starts = np.cumsum([0] + [b.num_rows for b in batches])
    which = np.searchsorted(starts, idx, side="right") - 1
    order = np.argsort(which, kind="stable")  # the rows grouped by batch, each group in the asked order
    grouped, in_batch = idx[order], which[order]
    parts = [batches[b].take(pa.array(grouped[in_batch == b] - starts[b], pa.int64())) for b in np.unique(in_batch)]
    taken = pa.Table.from_batches(parts, schema=table.schema).combine_chunks()  # small: the asked rows only
    return taken.take(pa.array(np.argsort(order, kind="stable"), pa.int64()))


def rows_where_in(table: pa.Table, column: str, values) -> pa.Table:
    """The rows of `table` whose `column` is one of `values` (text), in their order."""
    return table.filter(pc.is_in(table[column], value_set=pa.array(sorted(set(values)), pa.string())))

# DuckDB types whose Arrow column becomes, in `to_pandas`, the same pandas column as DuckDB's own `.df()` makes,
# but for NULLs: `.df()` gives an integer or boolean column holding one a nullable dtype (_NULLABLE), and a text
# column holding nothing else `object` Nones
_SAME_IN_PANDAS = frozenset({"VARCHAR", "DOUBLE", "FLOAT", "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT",
                             "UINTEGER", "USMALLINT", "UTINYINT", "BOOLEAN", "TIMESTAMP"})
_NULLABLE = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
             pa.int64(): pd.Int64Dtype(), pa.uint8(): pd.UInt8Dtype(), pa.uint16(): pd.UInt16Dtype(),
             pa.uint32(): pd.UInt32Dtype(), pa.uint64(): pd.UInt64Dtype(), pa.bool_(): pd.BooleanDtype()}


def frame(relation) -> pd.DataFrame:
    """The relation's rows as the pandas frame DuckDB's `.df()` makes (same dtypes, same values), built from
    its Arrow table: several times cheaper for text columns, which `.df()` turns into Python strings first.
    A relation with a column of another type (dates, decimals, lists, structs...), or with no rows (`.df()`
    types an empty text column `object`), is read by `.df()` itself."""
    if not all(str(t) in _SAME_IN_PANDAS for t in relation.types):
        return relation.df()
    table = arrow_table(relation)
    if not table.num_rows:
        return relation.df()
    out = table.to_pandas()
    for i, name in enumerate(table.column_names):
        column = table.column(i)
        if column.null_count and column.type in _NULLABLE:
            out.isetitem(i, column.to_pandas(types_mapper=_NULLABLE.get))
        elif column.null_count == table.num_rows and pa.types.is_string(column.type):
            out.isetitem(i, pd.Series([None] * table.num_rows, dtype=object))
    return out


def _rendering_columns(prefix: str = "") -> tuple[str, ...]:
    from generator_py.render.registry import format_names

    return tuple(prefix + name for name in format_names(text_only=True))


# The marts' long text columns (renderings, SQL, question text, JSON): what a model that counts, groups or
# averages never reads; reading them costs most of a mart's load time.
def table_text_columns() -> tuple[str, ...]:
    return _rendering_columns() + ("relational_csv", "release_csv")


def question_text_columns() -> tuple[str, ...]:
    return ("question", "sql", "answer_rows", "sql_literals", "spec_json") + _rendering_columns("rendering_")


def without_columns(relation, names):
    """The relation with every column but `names` (those it has)."""
    present = set(relation.columns)
    dropped = [n for n in names if n in present]
    if not dropped:
        return relation
    return relation.project("* exclude (" + ", ".join('"' + n.replace('"', '""') + '"' for n in dropped) + ")")
