"""What a question's SQL says, read from the spec its SQL text is written from: conditions per scope, projections,
grouping, order, limit and every literal (the NL rendering fills templates from these facts, sql_literals lists
the literals)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .spec import threshold_text


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
        and the LIMIT, in SQL order, as the question prints them (strings as they are, numbers canonical)."""
        out = list(self.outer.literals)
        if self.limit is not None:
            out.append(str(self.limit))
        return out


def _scope(filters, value_condition: Optional[dict], semi_join: Optional[dict] = None) -> Scope:
    """A WHERE clause's facts, its conditions in the order the SQL text writes them: the filters, the value
    condition, then the sub-query."""
    sc = Scope()
    lits = sc.literals
    for f in filters:
        vs = [str(v) for v in f["values"]]
        sc.conditions.setdefault(f["attribute"], []).extend(vs)
        lits.extend(vs)
    if value_condition:
        v = threshold_text(value_condition["threshold"])
        sc.comparison = (value_condition["op"], v)
        lits.append(v)
    if semi_join:
        sc.semi_attrs = list(semi_join["attributes"])
        sc.sub = _scope(semi_join["filters"], semi_join.get("value_condition"))
        lits.extend(sc.sub.literals)
    return sc


def query_facts(spec: dict) -> QueryFacts:
    """What the NL rendering reads of a question's query: read from the spec its SQL text is written from
    (spec.spec_sql), so the question says what the SQL does (tests/unit/test_spec_sql_text.py reads the same
    facts back from the SQL text)."""
    attrs, aggs, value = [], [], False
    for s in spec["select"]:
        if s["kind"] == "aggregate":
            aggs.append(s["function"])
        elif s["kind"] == "value" or s["name"].lower() == "value":
            value = True
        else:
            attrs.append(s["name"])
    desc = None
    for o in spec.get("order_by") or ():
        if o["kind"] == "value" or o["name"].lower() == "value":
            desc = o["direction"] == "desc"
    limit = spec.get("limit")
    return QueryFacts(_scope(spec["filters"], spec.get("value_condition"), spec.get("semi_join")), attrs, value, aggs,
                      list(spec.get("group_by") or ()), desc, None if limit is None else int(limit))


def sql_literals(spec: dict) -> list:
    """Every literal of the WHERE clause and the LIMIT of a question's query, canonical text (QueryFacts.literals)."""
    return query_facts(spec).literals
