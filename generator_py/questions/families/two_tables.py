"""Questions over two tables: the same measure in two periods (questions/table_pairs.py pairs each table with a
partner of its domain whose years it does not share). The question's own table is the first (`T1`), its
partner the second (`T2`); the prompt shows both (int_question_renderings).

* `two_table_join`: one category's change from a year of the first table to a year of the second: a join of
  the two tables on the category's attributes, `T2.Value - T1.Value`.
* `two_table_union`: an aggregate of one category over every year of both tables: a UNION ALL of the two
  selections.
* `two_table_lookup`: a cell of the second table whose category the first table decides: the label (city,
  subject, ...) with the highest or lowest value there in another year, found by a sub-query on `T1`.
"""
from __future__ import annotations

from typing import Optional

from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from ..table_model import TableModel
from .draws import ADDING_AGGS, EXPR
from .sql_text import (SqlTextFamily, aggregate, apply, col, conditions_sql, deepest_filters, facts_of, number,
                       value, where)
from .unanswerable import year_attributes


class _Pair:
    """What the families read of a table and its partner, computed once per table: the period attribute, the
    other attributes (the table's order) and the categories (their labels, none missing) both tables show."""

    def __init__(self, m: TableModel):
        p = m.partner
        periods = sorted(set(year_attributes(m)) & set(year_attributes(p)))
        self.period = periods[0] if periods else None
        self.names = [a for a in m.row_attrs + m.col_attrs if a != self.period]
        self.shared: list[tuple] = []
        if self.period is None or sorted(self.names) != sorted(a for a in p.row_attrs + p.col_attrs
                                                               if a != self.period):
            return
        self.shared = sorted(self._categories(m) & self._categories(p))
        self.years = (sorted(m.order[self.period]), sorted(p.order[self.period]))

    def _categories(self, m: TableModel) -> set:
        idx = [m.rows.index[a] for a in self.names]
        return {k for k in (tuple(r[i] for i in idx) for r in m.rows.rows) if None not in k}

    def labels(self, key: tuple) -> dict[str, str]:
        return dict(zip(self.names, key))


def pair_of(m: TableModel) -> _Pair:
    found = m.__dict__.get("_pair")
    if found is None:
        found = m.__dict__["_pair"] = _Pair(m)
    return found


def _year(attribute: str, label: str) -> dict:
    return {"attribute": attribute, "values": [label]}


class _TwoTables(SqlTextFamily):
    n_tables = 2
    table_roles = ("answer", "answer")

    def applicable(self, m):
        return bool(pair_of(m).shared)

    def rows_read(self, spec, m):
        first, second = (t["filters"] for t in spec["tables"])
        return len(filtered_rows(m.rows, {"filters": first})) + len(filtered_rows(m.partner.rows, {"filters": second}))


class TwoTableJoin(_TwoTables):
    """The change of one category from a year of the first table to a year of the second (a join)."""

    family_id = "two_table_join"
    treb_skill, treb_subtask = "ADA", "multi_step_operations"
    nl = NLRequirements(65, (("NESTED",),), frozenset({"NESTED"}))

    def draw(self, m, rng, variety):
        pair = pair_of(m)
        cats = deepest_filters(m, pair.labels(rng.choice(pair.shared)))
        first, second = (rng.choice(years) for years in pair.years)
        return {"operation": "join", "period": pair.period, "join_on": [f["attribute"] for f in cats],
                "tables": [{"filters": cats + [_year(pair.period, first)]},
                           {"filters": [_year(pair.period, second)]}]}, {}

    def compute(self, spec, m, extra):
        first = filtered_rows(m.rows, {"filters": spec["tables"][0]["filters"]})
        if len(first) != 1:
            return None
        keys = [{"attribute": a, "values": [first[0][m.rows.index[a]]]} for a in spec["join_on"]]
        second = filtered_rows(m.partner.rows, {"filters": spec["tables"][1]["filters"] + keys})
        if len(second) != 1:
            return None
        vi = m.rows.index["Value"]
        return [[number(second[0][vi] - first[0][vi])]]

    def sql(self, spec):
        on = " AND ".join(f"{col(a, 'T1')} = {col(a, 'T2')}" for a in spec["join_on"])
        first, second = (t["filters"] for t in spec["tables"])
        return (f"SELECT {value('T2')} - {value('T1')} FROM T1 INNER JOIN T2 ON {on}"
                + where(first, "T1", conditions_sql(second, "T2")))

    def facts(self, spec):
        first, second = (t["filters"] for t in spec["tables"])
        return facts_of(first, second)

    def shape(self, spec):
        return {}


class TwoTableUnion(_TwoTables):
    """An aggregate of one category over every year of both tables (a union of the two selections)."""

    family_id = "two_table_union"
    treb_skill, treb_subtask = "TCO", "general_operations"
    nl = NLRequirements(66, (EXPR,), frozenset(EXPR))

    def draw(self, m, rng, variety):
        pair = pair_of(m)
        cats = deepest_filters(m, pair.labels(rng.choice(pair.shared)))
        return {"operation": "union", "function": rng.choice(list(m.measure.aggregations)),
                "tables": [{"filters": cats}, {"filters": cats}]}, {}

    def compute(self, spec, m, extra):
        first, second = (t["filters"] for t in spec["tables"])
        rows = [(m, r) for r in filtered_rows(m.rows, {"filters": first})]
        rows += [(m.partner, r) for r in filtered_rows(m.partner.rows, {"filters": second})]
        if len(rows) < 2:
            return None
        if spec["function"] in ADDING_AGGS:
            # a sum or average must not span two values of a non-additive attribute
            for name in m.measure.non_additive:
                if len({r[t.rows.index[name]] for t, r in rows if name in t.rows.index}) > 1:
                    return None
        return [[number(apply(spec["function"], [r[t.rows.index["Value"]] for t, r in rows]))]]

    def sql(self, spec):
        first, second = (t["filters"] for t in spec["tables"])
        both = f"SELECT {value()} FROM T1{where(first)} UNION ALL SELECT {value()} FROM T2{where(second)}"
        return f"SELECT {aggregate(spec['function'])} FROM ({both}) AS both_tables"

    def facts(self, spec):
        first, second = (t["filters"] for t in spec["tables"])
        # both tables are read under the same conditions: the question states them once
        return facts_of(first, aggregates=[spec["function"]], literals=[v for f in second for v in f["values"]])

    def shape(self, spec):
        return {"aggregations": [spec["function"]], "grouping": "global"}


class TwoTableLookup(_TwoTables):
    """A cell of the second table for the label that ranks highest (or lowest) in a year of the first."""

    family_id = "two_table_lookup"
    treb_skill, treb_subtask = "ADA", "multi_step_retrieval"
    table_roles = ("condition", "answer")
    nl = NLRequirements(67, (("NESTED",), ("OPPATTR",), ("ORDERBYDESC",)),
                        frozenset({"NESTED", "OPPATTR", "ORDERBYDESC"}))

    @staticmethod
    def _ranked(m: TableModel) -> list[str]:
        """Attributes a question may rank by: complete in both tables, the deepest shown level of their code
        (a label is one cell once the rest is fixed), two labels or more."""
        p, pair = m.partner, pair_of(m)
        out = []
        for a in pair.names:
            code = m.attr_info[a].code
            deepest = all(m.attr_info[b].level <= m.attr_info[a].level for b in pair.names if m.attr_info[b].code == code)
            if deepest and a in m.complete and a in p.complete and len(m.order[a]) >= 2:
                out.append(a)
        return out

    def applicable(self, m):
        return super().applicable(m) and bool(self._ranked(m))

    def draw(self, m, rng, variety):
        pair = pair_of(m)
        ranked = rng.choice(self._ranked(m))
        code = m.attr_info[ranked].code
        labels = {a: x for a, x in pair.labels(rng.choice(pair.shared)).items() if m.attr_info[a].code != code}
        context = deepest_filters(m, labels)
        first, second = (rng.choice(years) for years in pair.years)
        return {"operation": "lookup", "attribute": ranked, "direction": rng.choice(("desc", "asc")),
                "period": pair.period,
                "tables": [{"filters": context + [_year(pair.period, first)]},
                           {"filters": context + [_year(pair.period, second)]}]}, {}

    def compute(self, spec, m, extra):
        a, vi = spec["attribute"], m.rows.index["Value"]
        ranked = filtered_rows(m.rows, {"filters": spec["tables"][0]["filters"]})
        labels = [r[m.rows.index[a]] for r in ranked]
        if len(ranked) < 2 or None in labels or len(set(labels)) != len(labels):
            return None
        ranked = sorted(ranked, key=lambda r: r[vi], reverse=spec["direction"] == "desc")
        if ranked[0][vi] == ranked[1][vi]:
            return None
        found = filtered_rows(m.partner.rows, {"filters": spec["tables"][1]["filters"]
                                               + [{"attribute": a, "values": [ranked[0][m.rows.index[a]]]}]})
        return [[number(found[0][vi])]] if len(found) == 1 else None

    def _ranking(self, spec, extreme: bool) -> str:
        a, first = spec["attribute"], spec["tables"][0]["filters"]
        if not extreme:
            order = "DESC" if spec["direction"] == "desc" else "ASC"
            return f"SELECT {col(a, 'T1')} FROM T1{where(first, 'T1')} ORDER BY {value('T1')} {order} LIMIT 1"
        # every label at the extreme value: more than one row where the first table ties
        extreme_of = aggregate("max" if spec["direction"] == "desc" else "min", "T1")
        at_extreme = f"{value('T1')} = (SELECT {extreme_of} FROM T1{where(first, 'T1')})"
        return f"SELECT {col(a, 'T1')} FROM T1{where(first, 'T1', [at_extreme])}"

    def sql(self, spec):
        link = f"{col(spec['attribute'], 'T2')} = ({self._ranking(spec, False)})"
        return f"SELECT {value('T2')} FROM T2" + where(spec["tables"][1]["filters"], "T2", [link])

    def sqlite_sql(self, spec):
        link = f"{col(spec['attribute'], 'T2')} IN ({self._ranking(spec, True)})"
        return f"SELECT {value('T2')} FROM T2" + where(spec["tables"][1]["filters"], "T2", [link])

    def facts(self, spec):
        first, second = (t["filters"] for t in spec["tables"])
        period = [f for f in first if f["attribute"] == spec["period"]]
        shared = [v for f in first if f["attribute"] != spec["period"] for v in f["values"]]
        # the first table's other conditions are the second's: the question says them once, for the second
        return facts_of(second, period, named=[spec["attribute"]], order_desc=spec["direction"] == "desc",
                        literals=shared)

    def shape(self, spec):
        return {"ordering": spec["direction"], "top_k": 1}


FAMILIES = (TwoTableJoin(), TwoTableUnion(), TwoTableLookup())
