"""A question's SQL text: the project's writer gives, for every spec shape, the text sqlglot's DuckDB generator
writes for the same AST, and hands any other AST to sqlglot."""
import itertools

import duckdb
import pytest
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from generator_py.questions.spec import _Unwritten, _write, ast_to_sql, spec_to_ast

SQLGLOT = Dialect.get_or_raise("duckdb").generator()


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


def test_every_spec_shape_is_written_as_sqlglot_writes_it():
    n = 0
    for spec in _all_specs():
        ast = spec_to_ast(spec)
        expected = SQLGLOT.generate(ast, copy=True)
        assert _write(ast) == expected, spec  # written by the project's writer, no fallback
        assert ast_to_sql(ast) == expected
        n += 1
    assert n == len(FILTERS) * len(SELECTS) * len(CONDITIONS) * len(SEMI_JOINS) * len(ORDERS)


def test_the_written_text_runs_in_duckdb_with_the_values_it_names():
    con = duckdb.connect()
    con.execute("""create table T as select * from (values ('2020', 'O''Hare', 'Fire', 4.0),
                   ('2021', 'Zürich', 'Flood', -7.0), ('2020', 'back\\slash', 'Fire', 20.0)) v(Year, "Place Name", Event, Value)""")
    spec = _spec(filters=[{"attribute": "Place Name", "values": ["O'Hare", "back\\slash"]}],
                 select=[{"kind": "attribute", "name": "Event"}, {"kind": "aggregate", "function": "sum"}],
                 group_by=["Event"], order_by=[{"kind": "attribute", "name": "Event", "direction": "asc"}])
    assert con.sql(ast_to_sql(spec_to_ast(spec))).fetchall() == [("Fire", 24.0)]
    spec = _spec(value_condition={"op": "<", "threshold": -5.5})
    assert con.sql(ast_to_sql(spec_to_ast(spec))).fetchall() == [(-7.0,)]


@pytest.mark.parametrize("change", ["or", "distinct", "nulls_first", "table_alias", "in_unnest"])
def test_an_ast_beyond_the_spec_shapes_is_left_to_sqlglot(change):
    ast = spec_to_ast(_spec(filters=[{"attribute": "Year", "values": ["2020"]}],
                            order_by=[{"kind": "value", "name": "Value", "direction": "asc"}]))
    if change == "or":
        where = ast.args["where"]
        where.set("this", exp.Or(this=where.this, expression=exp.EQ(this=exp.column("Year"),
                                                                     expression=exp.Literal.string("2021"))))
    elif change == "distinct":
        ast.set("distinct", exp.Distinct())
    elif change == "in_unnest":
        where = ast.args["where"]
        where.set("this", exp.In(this=exp.column("Year"), unnest=exp.Unnest(expressions=[exp.column("Years")])))
    elif change == "nulls_first":
        ast.args["order"].expressions[0].set("nulls_first", True)
    else:
        ast.args["from_"].this.set("alias", exp.TableAlias(this=exp.to_identifier("t")))
    with pytest.raises(_Unwritten):
        _write(ast)
    assert ast_to_sql(ast) == SQLGLOT.generate(ast, copy=True)
