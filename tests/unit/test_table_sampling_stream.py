"""The sampled relational tables come as Arrow tables of a chunk of tables each, made by worker processes while
the model writes the earlier ones into DuckDB; neither the chunk size nor the number of workers may change a
row or the order of the rows."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

from generator_py.dbt_glue.relations import landed
from generator_py.tables import generation
from generator_py.tables.generation import ROWS_SCHEMA, _table_chunks, load_all, sample_all

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _vocabulary(replicas: int):
    def read(name):
        return pd.read_csv(SEEDS / f"{name}.csv", dtype=str, keep_default_na=False).replace("", None)

    domain = sorted(set(read("table_templates")["domain"]))[0]
    return load_all(attributes=read("domain_attributes"), values=read("domain_values"),
                    ranges=read("domain_value_ranges"), effects=read("domain_value_effects"),
                    templates=read("table_templates"), options=read("table_template_options"),
                    replicas=replicas, domains=[domain])


def test_chunks_cover_every_table_once_in_order_cutting_variants_anywhere():
    _, _, variants = _vocabulary(replicas=3)
    chunks = _table_chunks(variants, size=7)
    tables = [(v.variant_id, v.domain, v.template_name, r) for c in chunks for v, a, b in c for r in range(a, b + 1)]
    assert tables == [(v.variant_id, v.domain, v.template_name, r) for v in variants for r in range(1, v.replicas + 1)]
    assert all(sum(b - a + 1 for _, a, b in c) == 7 for c in chunks[:-1])
    assert any(len(c) > 1 for c in chunks) and any(a > 1 for c in chunks for _, a, _ in c)


def test_stream_is_the_same_for_any_chunk_size_and_worker_count(monkeypatch):
    vocab, templates, variants = _vocabulary(replicas=2)
    one = pa.concat_tables(sample_all(vocab, templates, variants, seed=7, workers=1))
    monkeypatch.setattr(generation, "CHUNK_TABLES", 3)
    monkeypatch.setattr(generation, "POOL_MIN_TABLES", 1)
    parts = list(sample_all(vocab, templates, variants, seed=7, workers=2))
    assert len(parts) > 2 and all(p.schema == ROWS_SCHEMA for p in parts)
    pooled = pa.concat_tables(parts)
    assert pooled.num_rows == one.num_rows > 0
    assert pooled.equals(one)
    assert len(set(pooled["table_id"].to_pylist())) == sum(v.replicas for v in variants)


def _rows(result):
    """The rows of what `landed` gives: an Arrow table (held in memory) or a DuckDB relation (written there)."""
    return [tuple(r.values()) for r in result.to_pylist()] if isinstance(result, pa.Table) else result.fetchall()


# 0: every part goes to DuckDB; the default: small parts stay one Arrow table
HOLDS = pytest.mark.parametrize("hold", [0, 2**30], ids=["in-duckdb", "in-memory"])


@HOLDS
def test_landed_parts_keep_their_order_and_can_be_read_twice(tmp_path, hold):
    session = duckdb.connect(str(tmp_path / "x.duckdb"))
    parts = [pa.table({"k": list(range(i, i + 1000))[::-1], "s": [str(i)] * 1000}) for i in range(0, 5000, 1000)]
    result = landed(session, iter(parts), "t", hold_bytes=hold)
    assert isinstance(result, pa.Table) == (hold > 0)
    expected = [k for p in parts for k in p["k"].to_pylist()]
    assert [r[0] for r in _rows(result)] == expected
    assert [r[0] for r in _rows(result)] == expected  # a stream could not be read again
    ordered = landed(session, iter(parts), "u", order_by="k", hold_bytes=hold)
    assert [r[0] for r in _rows(ordered)] == sorted(expected)


@HOLDS
def test_landed_parts_type_a_column_all_null_in_the_first_parts_by_a_later_part(tmp_path, hold):
    session = duckdb.connect(str(tmp_path / "x.duckdb"))
    parts = [pa.table({"k": [1], "s": pa.nulls(1)}), pa.table({"k": [2], "s": ["a"]}), pa.table({"k": [3], "s": pa.nulls(1)})]
    result = landed(session, iter(parts), "t", hold_bytes=hold)
    if hold:
        assert result.schema == pa.schema([("k", pa.int64()), ("s", pa.string())])
    else:
        assert result.types == ["BIGINT", "VARCHAR"]
    assert _rows(result) == [(1, None), (2, "a"), (3, None)]


@HOLDS
def test_landed_parts_refuse_a_column_typed_two_ways_naming_it(tmp_path, hold):
    session = duckdb.connect(str(tmp_path / "x.duckdb"))
    parts = [pa.table({"k": [1], "s": ["a"]}), pa.table({"k": [2.5], "s": ["b"]})]
    with pytest.raises(ValueError, match="int_x: column k is double in a part, int64 in the first parts"):
        landed(session, iter(parts), "int_x", hold_bytes=hold)


@HOLDS
def test_landed_parts_out_of_order_are_sorted_and_in_order_are_not_resorted(tmp_path, hold):
    session = duckdb.connect(str(tmp_path / "x.duckdb"))
    parts = [pa.table({"k": ["b", "c"]}), pa.table({"k": ["a", "d"]})]  # each sorted, the second starts earlier
    assert _rows(landed(session, iter(parts), "t", order_by="k", hold_bytes=hold)) == [("a",), ("b",), ("c",), ("d",)]
    inside = [pa.table({"k": ["a", "c", "b"]})]
    assert _rows(landed(session, iter(inside), "u", order_by="k", hold_bytes=hold)) == [("a",), ("b",), ("c",)]
    ordered = [pa.table({"k": ["a", "b"]}), pa.table({"k": ["b", "c"]})]
    assert _rows(landed(session, iter(ordered), "v", order_by="k", hold_bytes=hold)) == [("a",), ("b",), ("b",), ("c",)]
    assert "__landed_v_sorted" not in {r[0] for r in session.sql("select table_name from duckdb_tables()").fetchall()}


@pytest.mark.parametrize("rows", [1, 2, 3, 7, 100])
def test_whole_groups_hold_every_row_of_a_key_together_wherever_batches_cut(tmp_path, rows):
    from generator_py.dbt_glue.relations import whole_groups

    session = duckdb.connect(str(tmp_path / "x.duckdb"))
    keys = ["a"] * 3 + ["b"] + ["c"] * 5 + ["d"] * 2
    session.execute("create table t as select * from (values " + ", ".join(f"('{k}', {i})" for i, k in enumerate(keys))
                    + ") v(k, i)")
    parts = list(whole_groups(session.table("t").order("k, i"), "k", rows=rows))
    assert [k for p in parts for k in p["k"].to_pylist()] == keys
    assert [i for p in parts for i in p["i"].to_pylist()] == list(range(len(keys)))
    seen = [set(p["k"].to_pylist()) for p in parts]
    assert all(not (a & b) for n, a in enumerate(seen) for b in seen[n + 1:])  # no key in two parts



@pytest.mark.parametrize("rows", [1, 2, 3, 7, 100])
def test_whole_groups_apart_read_key_ranges_in_order_each_key_in_one_part(tmp_path, rows):
    from generator_py.dbt_glue.relations import whole_groups_apart

    session = duckdb.connect(str(tmp_path / "x.duckdb"))
    keys = ["c"] * 5 + ["a"] * 3 + [None] * 2 + ["d"] * 2 + ["b"]  # stored out of order, two rows without a key
    session.execute("create table t as select * from (values " + ", ".join(
        f"({'NULL' if k is None else repr(k)}, {i})" for i, k in enumerate(keys)) + ") v(k, i)")
    parts = list(whole_groups_apart(session, session.table("t"), "k", "k, i desc", rows))
    got = [(k, i) for p in parts for k, i in zip(p["k"].to_pylist(), p["i"].to_pylist())]
    # the whole relation in its order (nulls last, as ORDER BY puts them), every row once
    assert got == session.table("t").order("k, i desc").fetchall()
    seen = [set(p["k"].to_pylist()) for p in parts]
    assert all(not (a & b) for n, a in enumerate(seen) for b in seen[n + 1:])  # no key in two parts
    # a part holds one key's rows, or as many whole keys as fit in `rows`
    assert all(len(s) == 1 or p.num_rows <= rows for s, p in zip(seen, parts))


def _instances_rows_aggregates():
    ids = ["t3", "t1", "t2", "t4"]  # t4 has no relational rows
    instances = pd.DataFrame({
        "table_id": ids, "domain": ["d"] * 4, "template_name": ["m"] * 4, "value_name": ["Count"] * 4,
        "value_is_integer": [True] * 4, "agg_fun": ["sum"] * 4, "agg_name": ["Total"] * 4,
        "row_attributes": [["Year"]] * 4, "row_attribute_codes": [["year"]] * 4, "row_attribute_levels": [[1]] * 4,
        "col_attributes": [["Sex"]] * 4, "col_attribute_codes": [["sex"]] * 4, "col_attribute_levels": [[1]] * 4})
    rows = pd.DataFrame([(t, n, [y], [s], float(10 * n)) for t in ("t1", "t2", "t3")
                         for n, (y, s) in enumerate([("2020", "F"), ("2020", "M"), ("2021", "F")], start=1)],
                        columns=["table_id", "rel_row", "row_labels", "col_labels", "value"])
    aggregates = pd.DataFrame({"table_id": ["t2", "t1"], "row_group": [["2020"], ["2021"]],
                               "col_group": [[], []], "value": [30.0, 30.0]})
    return instances, rows, aggregates


def test_relational_tables_from_parts_are_those_from_all_rows_at_once():
    from generator_py.questions.instances import _compact, relational_table_stream, relational_tables
    from generator_py.tables.relational import _as_arrow

    instances, rows, aggregates = _instances_rows_aggregates()
    whole = relational_tables(instances, rows, aggregates)
    assert [t.table_id for t in whole] == ["t1", "t2", "t3", "t4"]
    assert len(whole[0].plain_rows) == 3 and whole[3].plain_rows == []
    assert [a.value for a in whole[1].shown_aggregates] == [30.0]
    arrow = _as_arrow(rows)
    parts = [arrow.slice(0, 3), arrow.slice(3, 6)]  # t1, then t2 and t3
    streamed = list(relational_table_stream(instances, iter(parts), aggregates))
    assert [_compact(t) for t in streamed] == [_compact(t) for t in whole]


def test_aggregates_and_header_cells_read_in_parts_are_those_read_whole():
    from generator_py.questions.instances import _compact, relational_table_stream, relational_tables

    instances, rows, aggregates = _instances_rows_aggregates()
    aggregates = pd.concat([aggregates, pd.DataFrame({"table_id": ["t3", "t1", "t4"], "row_group": [["x"], ["2020"], []],
                                                      "col_group": [["F"], [], ["M"]], "value": [1.0, 2.0, 3.0]})],
                           ignore_index=True)
    headers = pd.DataFrame({"table_id": ["t1", "t3", "t1", "t4"], "grid_row": [1, 0, 0, 2], "grid_col": [0, 1, 1, 0],
                            "role": ["row_header", "column_header", "corner", "row_header"],
                            "text": ["2020", "F", "", "2021"]})
    whole = relational_tables(instances, rows, aggregates, headers)
    assert [len(t.shown_aggregates) for t in whole] == [2, 1, 1, 1]
    assert [t.header_cells for t in whole][0] == ((0, 1, "corner", ""), (1, 0, "row_header", "2020"))

    def parts(frame, cuts):  # table id order, each part holding its tables whole
        ordered = frame.sort_values("table_id", kind="stable").reset_index(drop=True)
        bounds = [0, *cuts, len(ordered)]
        return iter([pa.Table.from_pandas(ordered.iloc[a:b], preserve_index=False) for a, b in zip(bounds, bounds[1:])])

    streamed = list(relational_table_stream(instances, iter([rows]), parts(aggregates, [2, 3]), parts(headers, [2])))
    assert [_compact(t) for t in streamed] == [_compact(t) for t in whole]
    assert [t.header_cells for t in streamed] == [t.header_cells for t in whole]


def test_relational_table_parts_out_of_order_or_cut_are_an_error():
    from generator_py.questions.instances import relational_table_stream
    from generator_py.tables.relational import _as_arrow

    instances, rows, aggregates = _instances_rows_aggregates()
    arrow = _as_arrow(rows)
    with pytest.raises(ValueError, match="table 't1' comes in a part after table 't2'"):
        list(relational_table_stream(instances, iter([arrow.slice(3, 3), arrow.slice(0, 3)]), aggregates))
    with pytest.raises(ValueError, match="each part must hold its tables whole"):
        list(relational_table_stream(instances, iter([arrow.slice(0, 2), arrow.slice(2, 4)]), aggregates))
