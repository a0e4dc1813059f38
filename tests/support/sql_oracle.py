"""The oracle of a question's SQL text and facts: the query built as sqlglot expressions (what sqlglot's DuckDB
generator writes for it is the text the project writes) and the facts read back from a parsed SQL text (what the
text says is what the question renders)."""
from __future__ import annotations

from sqlglot import exp, parse_one
from sqlglot.dialects.dialect import Dialect

from generator_py.core.formatting import format_number
from generator_py.questions.query_facts import QueryFacts, Scope
from generator_py.questions.spec import TABLE_NAME, VALUE, needs_quotes

GENERATOR = Dialect.get_or_raise("duckdb").generator()
_AGG = {"min": exp.Min, "max": exp.Max, "sum": exp.Sum, "avg": exp.Avg}
_CMP = {"<": exp.LT, ">": exp.GT}


def column(name: str) -> exp.Column:
    return exp.Column(this=exp.Identifier(this=name, quoted=needs_quotes(name)))


def _conditions(filters, value_condition) -> list:
    out = []
    for f in filters:
        vals = f["values"]
        if len(vals) == 1:
            out.append(exp.EQ(this=column(f["attribute"]), expression=exp.Literal.string(str(vals[0]))))
        else:
            out.append(exp.In(this=column(f["attribute"]), expressions=[exp.Literal.string(str(v)) for v in vals]))
    if value_condition:
        threshold = exp.Literal.number(format_number(value_condition["threshold"]))
        out.append(_CMP[value_condition["op"]](this=column(VALUE), expression=threshold))
    return out


def _select(projections: list, conditions: list) -> exp.Select:
    sel = exp.Select(expressions=projections)
    sel.set("from_", exp.From(this=exp.Table(this=exp.Identifier(this=TABLE_NAME, quoted=False))))
    if conditions:
        where = conditions[0]
        for c in conditions[1:]:
            where = exp.And(this=where, expression=c)
        sel.set("where", exp.Where(this=where))
    return sel


def spec_ast(spec: dict) -> exp.Select:
    """The query of a spec as sqlglot expressions."""
    projections = []
    for s in spec["select"]:
        if s["kind"] == "attribute":
            projections.append(column(s["name"]))
        elif s["kind"] == "value":
            projections.append(column(VALUE))
        else:
            projections.append(_AGG[s["function"]](this=column(VALUE)))
    conditions = _conditions(spec["filters"], spec.get("value_condition"))
    sj = spec.get("semi_join")
    if sj:
        attrs = sj["attributes"]
        inner = _select([column(a) for a in attrs], _conditions(sj["filters"], sj.get("value_condition")))
        lhs = column(attrs[0]) if len(attrs) == 1 else exp.Tuple(expressions=[column(a) for a in attrs])
        conditions.append(exp.In(this=lhs, query=exp.Subquery(this=inner)))
    sel = _select(projections, conditions)
    if spec.get("group_by"):
        sel.set("group", exp.Group(expressions=[column(a) for a in spec["group_by"]]))
    if spec.get("order_by"):
        sel.set("order", exp.Order(expressions=[
            exp.Ordered(this=column(VALUE if o["kind"] == "value" else o["name"]), desc=o["direction"] == "desc",
                        nulls_first=False) for o in spec["order_by"]]))
    if spec.get("limit") is not None:
        sel.set("limit", exp.Limit(expression=exp.Literal.number(int(spec["limit"]))))
    return sel


def sqlglot_text(spec: dict) -> str:
    """What sqlglot's DuckDB generator writes for the spec's query."""
    return GENERATOR.generate(spec_ast(spec), copy=True)


def _flatten_and(node, out: list) -> list:
    while type(node) is exp.And:
        _flatten_and(node.this, out)
        node = node.expression
    out.append(node.this if type(node) is exp.Paren else node)
    return out


def _literal(node) -> str:
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else format_number(float(node.this))
    assert isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal), node.sql()
    return format_number(-float(node.this.this))


def _scope(select: exp.Select) -> Scope:
    sc = Scope()
    where = select.args.get("where")
    for c in _flatten_and(where.this, []) if where is not None else []:
        if isinstance(c, exp.EQ):
            v = _literal(c.expression)
            sc.conditions.setdefault(c.this.name, []).append(v)
            sc.literals.append(v)
        elif isinstance(c, exp.In) and c.args.get("query") is not None:
            cols = c.this.expressions if isinstance(c.this, exp.Tuple) else [c.this]
            sc.semi_attrs = [x.name for x in cols]
            q = c.args["query"]
            sc.sub = _scope(q.this if isinstance(q, exp.Subquery) else q)
            sc.literals.extend(sc.sub.literals)
        elif isinstance(c, exp.In):
            vs = [_literal(x) for x in c.expressions]
            sc.conditions.setdefault(c.this.name, []).extend(vs)
            sc.literals.extend(vs)
        else:
            assert isinstance(c, (exp.LT, exp.GT)), c.sql()
            v = _literal(c.expression)
            sc.comparison = ("<" if isinstance(c, exp.LT) else ">", v)
            sc.literals.append(v)
    return sc


def facts_of_sql(sql: str) -> QueryFacts:
    """The facts a question's SQL text states, read from the text parsed back by sqlglot."""
    tree = parse_one(sql, read="duckdb")
    attrs, aggs, value = [], [], False
    agg_names = {cls: name for name, cls in _AGG.items()}
    for e in tree.expressions:
        if type(e) in agg_names:
            aggs.append(agg_names[type(e)])
        elif e.name.lower() == "value":
            value = True
        else:
            attrs.append(e.name)
    group = [g.name for g in tree.args["group"].expressions] if tree.args.get("group") else []
    desc = None
    for o in tree.args["order"].expressions if tree.args.get("order") else []:
        if o.this.name.lower() == "value":
            desc = bool(o.args.get("desc"))
    limit = tree.args.get("limit")
    return QueryFacts(_scope(tree), attrs, value, aggs, group, desc,
                      None if limit is None else int(_literal(limit.expression)))
