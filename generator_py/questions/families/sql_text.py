"""The base of the families whose answer is the SQL text they write, run by DuckDB as it stands (kind
"sql_text"): queries the spec language of the Table III families cannot state, over two tables (`T1`, the
question's own, and `T2`, its partner) or with OLAP grouping (ROLLUP, GROUPING SETS).

Such a family writes its DuckDB SQL (`sql`) and an equivalent query for SQLite (`sqlite_sql`: the same text
transpiled by sqlglot, or a union of plain GROUP BYs where SQLite has no OLAP grouping) from the spec alone,
and computes the answer in Python from the table model (`compute`), which generation needs to judge a draw.
The ground truth is DuckDB running `sql` on the relational tables (int_sql_text_answers); the SQLite query
and the generator's answer check it (int_sql_text_cross_check). Answer rows hold canonical text, None where
a query's row leaves a column empty (the grouping columns of a roll-up's or a grouping set's total), which the
`gt` string leaves out.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import sqlglot
from sqlglot import exp

from ...core.formatting import format_number
from ..query_facts import QueryFacts
from ..spec import VALUE, needs_quotes
from ..table_model import TableModel
from .computed import ComputedFamily, scope_of

SUITE = "beyond"
TABLE_NAMES = {1: ("T",), 2: ("T1", "T2")}  # the relations a question's SQL reads, in the order of its tables
AGGREGATES = {"sum": "SUM", "avg": "AVG", "min": "MIN", "max": "MAX"}


def col(name: str, table: Optional[str] = None) -> str:
    """A column as DuckDB and SQLite both read it (quoted only where needed), qualified by `table`."""
    ident = exp.Identifier(this=name, quoted=needs_quotes(name))
    node = exp.Column(this=ident, table=exp.Identifier(this=table) if table else None)
    return node.sql(dialect="duckdb")


def value(table: Optional[str] = None) -> str:
    return col(VALUE, table)


def literal(text: str) -> str:
    return exp.Literal.string(str(text)).sql(dialect="duckdb")


def conditions_sql(filters: Sequence[dict], table: Optional[str] = None) -> list[str]:
    """One condition per filter: `=` for one value, `IN (...)` for several."""
    out = []
    for f in filters:
        vals = [literal(v) for v in f["values"]]
        c = col(f["attribute"], table)
        out.append(f"{c} = {vals[0]}" if len(vals) == 1 else f"{c} IN ({', '.join(vals)})")
    return out


def where(filters: Sequence[dict], table: Optional[str] = None, more: Sequence[str] = ()) -> str:
    conds = conditions_sql(filters, table) + list(more)
    return f" WHERE {' AND '.join(conds)}" if conds else ""


def aggregate(function: str, table: Optional[str] = None) -> str:
    return f"{AGGREGATES[function]}({value(table)})"


def to_sqlite(sql: str) -> str:
    return sqlglot.transpile(sql, read="duckdb", write="sqlite")[0]


def number(x: float) -> str:
    return format_number(float(x))


def apply(function: str, values: Sequence[float]) -> float:
    if function == "sum":
        return sum(values)
    if function == "avg":
        return sum(values) / len(values)
    return min(values) if function == "min" else max(values)


class SqlTextFamily(ComputedFamily):
    """A family answered by its own SQL text (see the module docstring); drawn and asked as a computed family
    is (generate._computed_questions), its answer checked by SQLite rather than by a numpy `cross_check`."""

    kind = "sql_text"
    suite = SUITE
    answer_type = "values"

    # ------------------------------------------------------------------ what a family implements

    def compute(self, spec: dict, m: TableModel, extra: dict) -> Optional[list[list]]:
        """The answer rows (canonical text, None for an empty column), or None when the draw cannot be asked."""
        raise NotImplementedError

    def sql(self, spec: dict) -> str:
        """The DuckDB SQL over TABLE_NAMES[n_tables] that defines the answer."""
        raise NotImplementedError

    def sqlite_sql(self, spec: dict) -> str:
        """The same answer as a SQLite query (default: `sql` transpiled)."""
        return to_sqlite(self.sql(spec))

    def facts(self, spec: dict) -> QueryFacts:
        """What the NL rendering reads (conditions per part of the question, aggregates, ...)."""
        raise NotImplementedError

    def shape(self, spec: dict) -> dict[str, Any]:
        """The metadata beyond the conditions: projected_attributes, aggregations, grouping, ordering, top_k,
        aggregate_in_table."""
        raise NotImplementedError

    def rows_read(self, spec: dict, m: TableModel) -> int:
        """Relational rows the question's conditions keep (its tables together)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ what generation calls

    def statement(self, spec: dict, m: TableModel) -> tuple[str, QueryFacts, int]:
        return self.sql(spec), self.facts(spec), self.rows_read(spec, m)

    def table_conditions(self, spec: dict) -> list[list[dict]]:
        if "tables" in spec:
            return [list(t["filters"]) for t in spec["tables"]]
        return [list(spec["filters"])]

    def metadata(self, spec, m):
        filters = [f for t in self.table_conditions(spec) for f in t]
        row_set, col_set = set(m.row_attrs), set(m.col_attrs)
        shape = {"projected_attributes": [], "aggregations": [], "aggregate_in_table": False, "grouping": "none",
                 "ordering": "none", "top_k": None, **self.shape(spec)}
        return {"template_id": None,
                "n_row_conditions": sum(1 for f in filters if f["attribute"] in row_set),
                "n_col_conditions": sum(1 for f in filters if f["attribute"] in col_set),
                **shape, "value_condition": False}

    def properties(self, spec, md, m, n_retained):
        # the release's reading of a query with these conditions, projections and aggregates
        pseudo = {"filters": [f for t in self.table_conditions(spec) for f in t],
                  "select": ([{"kind": "attribute", "name": a} for a in md["projected_attributes"]]
                             + [{"kind": "aggregate", "function": a} for a in md["aggregations"]])
                  or [{"kind": "value"}]}
        return super().properties(pseudo, md, m, n_retained)


def facts_of(outer: Sequence[dict], sub: Optional[Sequence[dict]] = None, *, aggregates: Sequence[str] = (),
             named: Sequence[str] = (), group_by: Sequence[str] = (), order_desc: Optional[bool] = None,
             literals: Sequence[str] = ()) -> QueryFacts:
    """Facts of a question read in one part (`outer`) or two (`sub`: the tokens from $NESTED on); `named`: the
    attributes $OPPATTR names (the one whose label the question asks or ranks by; read as a sub-query's
    attributes are, so no report sentence is added: the phrasing asks for the label itself); `literals`:
    further literals of the SQL that the question states elsewhere (a condition both tables share)."""
    o = scope_of(outer)
    o.semi_attrs = list(named)
    if sub is not None:
        o.sub = scope_of(sub)
        o.literals.extend(o.sub.literals)
    o.literals.extend(literals)
    return QueryFacts(o, [], False, list(aggregates), list(group_by), order_desc, None)


def deepest_filters(m: TableModel, labels: dict[str, str]) -> list[dict]:
    """Equality conditions selecting `labels` (attribute -> label): per hierarchical code only its deepest
    labelled level (it determines the levels above), in the table's attribute order."""
    deepest: dict[str, tuple[int, str]] = {}
    for a, label in labels.items():
        if label is None:
            continue
        info = m.attr_info[a]
        if info.code not in deepest or info.level > deepest[info.code][0]:
            deepest[info.code] = (info.level, a)
    keep = {a for _, a in deepest.values()}
    return [{"attribute": a, "values": [labels[a]]} for a in m.row_attrs + m.col_attrs if a in keep]
