"""A question's SQL text and what it says: for every spec shape, the project writes the text sqlglot's DuckDB
generator writes for the same query, and the facts its question is rendered from are the facts the text states
(read back by sqlglot's parser)."""
import itertools

import duckdb
import pytest

from generator_py.questions.query_facts import query_facts
from generator_py.questions.spec import conditions_sql, identifier, spec_sql
from support.sql_oracle import column, facts_of_sql, sqlglot_text


def _spec(**kw):
    s = {"filters": [], "value_condition": None, "semi_join": None, "select": [{"kind": "value"}],
         "group_by": [], "order_by": [], "limit": None}
    s.update(kw)
    return s


FILTERS = [
    [],
    [{"attribute": "Year", "values": ["2020"]}],
    [{"attribute": "Year", "values": ["2020", "2021"]}, {"attribute": "Gender", "values": ["Female"]}],
    # texts that need escaping or quoting: a single quote, a backslash, a double quote, non-ASCII, a newline
    [{"attribute": "Place Name", "values": ["O'Hare", "back\\slash", 'say "hi"', "Zürich", "two\nlines"]}],
    [{"attribute": 'odd"name', "values": ["x"]}, {"attribute": "select", "values": ["keyword"]}],
]
SELECTS = [
    [{"kind": "value"}],
    [{"kind": "attribute", "name": "Event"}, {"kind": "value"}],
    [{"kind": "aggregate", "function": f} for f in ("min", "max", "sum", "avg")],
    [{"kind": "attribute", "name": "Year"}, {"kind": "aggregate", "function": "sum"}],
]
CONDITIONS = [None, {"op": "<", "threshold": -5.5}, {"op": ">", "threshold": 12}, {"op": ">", "threshold": 0.125}]
SEMI_JOINS = [
    None,
    {"attributes": ["Event"], "filters": [{"attribute": "Gender", "values": ["Male"]}],
     "value_condition": {"op": ">", "threshold": 3.5}},
    {"attributes": ["Year", "Month"], "filters": [], "value_condition": {"op": "<", "threshold": -1.02}},
]
ORDERS = [
    ([], [], None),
    (["Year"], [{"kind": "attribute", "name": "Year", "direction": "asc"}], None),
    ([], [{"kind": "value", "name": "Value", "direction": "desc"}], 3),
    (["Year", "Event"], [{"kind": "attribute", "name": "Year", "direction": "asc"},
                         {"kind": "value", "name": "Value", "direction": "desc"}], 1),
]


def _all_specs():
    for filters, select, condition, semi, (group, order, limit) in itertools.product(
            FILTERS, SELECTS, CONDITIONS, SEMI_JOINS, ORDERS):
        yield _spec(filters=filters, select=select, value_condition=condition, semi_join=semi, group_by=group,
                    order_by=order, limit=limit)


def test_every_spec_shape_is_written_as_sqlglot_writes_it_and_says_its_facts():
    n = 0
    for spec in _all_specs():
        sql = spec_sql(spec)
        assert sql == sqlglot_text(spec), spec
        assert query_facts(spec) == facts_of_sql(sql), spec
        n += 1
    assert n == len(FILTERS) * len(SELECTS) * len(CONDITIONS) * len(SEMI_JOINS) * len(ORDERS)


@pytest.mark.parametrize("name", ["Year", "Place Name", 'odd"name', "select", "Value", "Zürich", "a-b", "_x1", "2nd"])
def test_a_column_is_written_as_sqlglot_writes_it(name):
    assert identifier(name) == column(name).sql(dialect="duckdb")


def test_conditions_are_written_in_order_filters_then_the_value_condition():
    filters = [{"attribute": "Year", "values": ["2020", "2021"]}, {"attribute": "Gender", "values": ["O'Neil"]}]
    assert conditions_sql(filters, {"op": "<", "threshold": -5.5}) == [
        "Year IN ('2020', '2021')", "Gender = 'O''Neil'", "Value < -5.5"]
    assert conditions_sql([], None) == []


def test_the_written_text_runs_in_duckdb_with_the_values_it_names():
    con = duckdb.connect()
    con.execute("""create table T as select * from (values ('2020', 'O''Hare', 'Fire', 4.0),
                   ('2021', 'Zürich', 'Flood', -7.0), ('2020', 'back\\slash', 'Fire', 20.0)) v(Year, "Place Name", Event, Value)""")
    spec = _spec(filters=[{"attribute": "Place Name", "values": ["O'Hare", "back\\slash"]}],
                 select=[{"kind": "attribute", "name": "Event"}, {"kind": "aggregate", "function": "sum"}],
                 group_by=["Event"], order_by=[{"kind": "attribute", "name": "Event", "direction": "asc"}])
    assert con.sql(spec_sql(spec)).fetchall() == [("Fire", 24.0)]
    spec = _spec(value_condition={"op": "<", "threshold": -5.5})
    assert con.sql(spec_sql(spec)).fetchall() == [(-7.0,)]
