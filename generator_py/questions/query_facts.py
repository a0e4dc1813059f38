"""What a question's SQL says, read from its sqlglot AST: conditions per scope, projections, grouping, order,
limit and every literal (the NL rendering fills templates from these facts, sql_literals lists the literals)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from sqlglot import exp

from ..core.formatting import format_number


@dataclass
class Scope:
    conditions: dict = field(default_factory=dict)  # attribute -> list of literal values (SQL order)
    comparison: Optional[tuple] = None  # (op, threshold text)
    semi_attrs: list = field(default_factory=list)
    sub: Optional["Scope"] = None
    literals: list = field(default_factory=list)  # every literal of the WHERE clause (sub-query inline), SQL order


@dataclass
class QueryFacts:
    outer: Scope
    projected_attrs: list
    projects_value: bool
    aggregates: list
    group_by: list
    order_desc: Optional[bool]  # direction of ORDER BY Value, None when not ordered by Value
    limit: Optional[int]

    @property
    def literals(self) -> list:
        """Every literal of the WHERE clause (equality / IN values, thresholds, the sub-query's included)
        and the LIMIT, in SQL order, as the question prints them (see `_lit`)."""
        out = list(self.outer.literals)
        if self.limit is not None:
            out.append(str(self.limit))
        return out


def _flatten_and(node, out: list) -> list:
    while True:
        t = type(node)
        if t is exp.And:
            _flatten_and(node.this, out)
            node = node.expression
        elif t is exp.Paren:
            node = node.this
        else:
            out.append(node)
            return out


def _lit(node) -> str:
    """A literal's canonical text, as the question shows it: strings as they are, numbers through
    format_number, negative numbers (sqlglot reads `-5.5` as Neg(5.5)) with their sign."""
    if isinstance(node, exp.Literal):
        return node.this if node.args.get("is_string") else format_number(float(node.this))
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.args.get("is_string"):
        return format_number(-float(node.this.this))  # e.g. temperatures below zero
    raise ValueError(f"expected a literal, got {node.sql()}")


def _scope(select: exp.Select) -> Scope:
    sc = Scope()
    where = select.args.get("where")
    if where is None:
        return sc
    lits = sc.literals
    for c in _flatten_and(where.this, []):
        t = type(c)
        if t is exp.EQ and isinstance(c.this, exp.Column):
            v = _lit(c.expression)
            sc.conditions.setdefault(c.this.name, []).append(v)
            lits.append(v)
        elif t is exp.In and c.args.get("query") is not None:
            lhs = c.this
            cols = lhs.expressions if isinstance(lhs, exp.Tuple) else [lhs]
            sc.semi_attrs = [x.name for x in cols]
            q = c.args["query"]
            sc.sub = _scope(q.this if isinstance(q, exp.Subquery) else q)
            lits.extend(sc.sub.literals)
        elif t is exp.In and isinstance(c.this, exp.Column):
            vs = [_lit(x) for x in c.expressions]
            sc.conditions.setdefault(c.this.name, []).extend(vs)
            lits.extend(vs)
        elif (t is exp.LT or t is exp.GT) and isinstance(c.this, exp.Column):
            v = _lit(c.expression)
            sc.comparison = ("<" if t is exp.LT else ">", v)
            lits.append(v)
        else:
            raise ValueError(f"unsupported condition for NL rendering: {c.sql()}")
    return sc


_AGG_CLASSES = {exp.Min: "min", exp.Max: "max", exp.Sum: "sum", exp.Avg: "avg"}


def query_facts(ast: exp.Select) -> QueryFacts:
    """What the NL rendering reads from the question's sqlglot AST."""
    attrs, aggs, value = [], [], False
    for e in ast.expressions:
        fn = _AGG_CLASSES.get(type(e))
        if fn:
            aggs.append(fn)
        elif isinstance(e, exp.Column):
            if e.name.lower() == "value":
                value = True
            else:
                attrs.append(e.name)
        else:
            raise ValueError(f"unsupported projection for NL rendering: {e.sql()}")
    args = ast.args
    group = [g.name for g in args["group"].expressions] if args.get("group") else []
    desc = None
    if args.get("order"):
        for o in args["order"].expressions:
            if isinstance(o.this, exp.Column) and o.this.name.lower() == "value":
                desc = bool(o.args.get("desc"))
    limit = None
    if args.get("limit") is not None:
        limit = int(_lit(args["limit"].expression))
    return QueryFacts(_scope(ast), attrs, value, aggs, group, desc, limit)


def sql_literals(ast: exp.Select) -> list:
    """Every literal of the WHERE clause and the LIMIT of a question's AST, canonical text (QueryFacts.literals)."""
    return query_facts(ast).literals
