"""Reading a DuckDB relation (what `dbt.ref` gives a Python model) as an Arrow table: the columns reach the
libraries without a pandas frame (a frame builds a Python object per text cell); or as a pandas frame by way of
Arrow (`frame`). No dbt imports."""
from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def arrow_table(relation) -> pa.Table:
    """The relation's rows as one Arrow table (`to_arrow_table` from duckdb 1.4, `fetch_arrow_table` before)."""
    read = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return read()


def column_batches(relation, rows: int = 250_000):
    """The relation's rows in batches of about `rows`, each as {column: Python list}: a model walks a relation of
    millions of rows holding one batch of Python objects at a time (`to_arrow_reader` from duckdb 1.4)."""
    read = getattr(relation, "to_arrow_reader", None) or relation.fetch_arrow_reader
    for batch in read(rows):
        yield batch.to_pydict()


# DuckDB's `.df()` reads an integer column as pandas' nullable integers; Arrow's own conversion gives floats
# with NaN where a value is missing
_NULLABLE_INTEGERS = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
                      pa.int64(): pd.Int64Dtype()}


def frame_of(table: pa.Table) -> pd.DataFrame:
    """Rows of an Arrow table (a part of what `arrow_table` read) as a frame with the column types the
    relation's `.df()` gives: a model reads a relation once as Arrow and makes frames of the parts it works on."""
    return table.to_pandas(types_mapper=_NULLABLE_INTEGERS.get)


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
