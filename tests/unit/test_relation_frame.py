"""generator_py.dbt_glue.relations.frame: the pandas frame of a DuckDB relation, read by way of Arrow, is the frame
DuckDB's own `.df()` makes, dtype for dtype and value for value, whatever the column types and NULLs; and
`take_rows` takes what Arrow's take takes."""
import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from generator_py.dbt_glue.relations import frame, take_rows

_COLUMNS = {
    "i": "1::INTEGER", "b": "1::BIGINT", "sm": "1::SMALLINT", "ti": "1::TINYINT", "u": "1::UTINYINT",
    "ub": "1::UBIGINT", "s": "'a'", "d": "1.5::DOUBLE", "f": "1.5::FLOAT", "bo": "true",
    "ts": "TIMESTAMP '2020-01-01 01:02:03'", "dec": "1.5::DECIMAL(10,2)", "dt": "DATE '2020-01-01'",
    "li": "[1, 2]", "ls": "['x']", "st": "{'a': 1}", "h": "1::HUGEINT",
}


def _relation(con, names, rows, every=2):
    # `rows` rows; NULL in every column of every `every`th row from the second (every=1: all NULL)
    cells = ", ".join(f"case when n % {every} = {every - 1} then null else {_COLUMNS[c]} end as {c}" for c in names)
    return con.sql(f"select {cells} from range({rows}) t(n) order by n")


@pytest.mark.parametrize("every", [2, 1])
@pytest.mark.parametrize("rows", [0, 1, 3])
@pytest.mark.parametrize("names", [["i", "b", "sm", "ti", "u", "ub", "s", "d", "f", "bo", "ts"],
                                   ["s", "dec"], ["i", "dt"], ["li", "ls"], ["st", "h", "s"]])
def test_frame_is_what_df_makes(names, rows, every):
    con = duckdb.connect()
    got, want = frame(_relation(con, names, rows, every)), _relation(con, names, rows, every).df()
    assert list(got.dtypes) == list(want.dtypes)
    pd.testing.assert_frame_equal(got, want, check_exact=True)


def test_frame_keeps_nulls_and_row_order():
    con = duckdb.connect()
    got = frame(con.sql("select n::INTEGER as n, case when n % 3 = 0 then null else 'v' || n end as s "
                        "from range(2000) t(n) order by n desc"))
    assert got["n"].dtype == "int32" and got["n"].tolist() == list(range(1999, -1, -1))
    assert got["s"].isna().sum() == 667 and got["s"].iloc[2] == "v1997"


def test_take_rows_gives_what_arrow_take_gives_on_a_table_of_several_batches():
    batches = [pa.record_batch({"id": pa.array([f"r{i}" for i in range(a, b)]), "n": pa.array(list(range(a, b)))})
               for a, b in ((0, 5), (5, 6), (6, 20))]
    table = pa.Table.from_batches(batches)
    rng = np.random.default_rng(3)
    for indices in ([], [7], [19, 0, 5, 5, 12, 3], rng.integers(0, 20, 50).tolist()):
        assert take_rows(table, indices).equals(table.take(pa.array(indices, pa.int64()))), indices
    assert take_rows(table.combine_chunks(), [4, 1]).column("n").to_pylist() == [4, 1]
    for bad in ([20], [-1]):
        with pytest.raises(IndexError):
            take_rows(table, bad)
