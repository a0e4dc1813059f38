"""TReB's fuzzy query and semantic selection on an HCT: a condition named by a grouping instead of its labels
("in the European countries", "in the northern summer months", "in the Norwegian cities"), resolved exactly
through the vocabulary (generator_py.vocabulary.knowledge: a declared set of labels, or the descendants of a
vocabulary label) to the labels of the group the table shows.

`fuzzy_query` (TBO table query): an aggregate the measure admits over the cells of the group's labels, every
other condition of one cell kept (a grouping above the table's innermost level of its hierarchy takes every
cell below its labels). `semantic_selection` (TBO table selection): which of the group's labels have a value
above (below) a threshold, every other condition kept, one cell per label.

The question says the grouping's phrase where the labels would be (its sql_literals hold the phrase, not the
labels); the spec keeps the grouping, its members shown and the SQL's IN list. The cross-check recomputes the
answer with numpy from the built relational rows; the data test assert_groupings_resolved_through_the_vocabulary
resolves each grouping again in SQL from the seeds.
"""
from __future__ import annotations

from fractions import Fraction

from ...core.formatting import format_number
from ..query_facts import QueryFacts
from ..spec import filtered_rows, identifier
from ..template_syntax import NLRequirements
from .computation import _NUMPY_AGG, _SQL_AGG, _aggregate
from .computed import ComputedFamily, answer_text, from_sql, scope_of, value_sql, values_of, where_sql
from .draws import adds_across_parts


def grouping_options(m) -> list[tuple]:
    """(attribute, grouping, the group's labels the table shows) for every grouping of a table attribute with
    two or more labels shown and some label of the attribute shown outside it (else it says "all")."""
    cached = getattr(m, "_grouping_options", None)
    if cached is None:
        k = m.measure.knowledge
        cached = []
        for attr in m.row_attrs + m.col_attrs:
            for g in k.groupings.get(attr, ()):
                members = set(g.members)
                shown = [label for label in m.order[attr] if label in members]
                if len(shown) >= 2 and len(m.order[attr]) > len(shown):
                    cached.append((attr, g, shown))
        m._grouping_options = cached
    return cached


def grouped_filters(m, rng, attr: str, shown: list[str]) -> list[dict]:
    """A random cell of a shown label's conditions, those on `attr`'s hierarchy replaced by `attr` IN `shown`."""
    axis_attrs = m.row_attrs if attr in m.row_attrs else m.col_attrs
    j = axis_attrs.index(attr)
    members = set(shown)
    cells = [(rp, cp) for rp, cp in m.cells if (rp if attr in m.row_attrs else cp)[j] in members]
    rp, cp = rng.choice(cells)
    code = m.attr_info[attr].code
    kept = [f for f in m.filters_for("row", [rp]) + m.filters_for("col", [cp]) if m.attr_info[f["attribute"]].code != code]
    return kept + [{"attribute": attr, "values": list(shown)}]


def grouping_facts(spec: dict, aggregates=(), projected=(), comparison=None) -> QueryFacts:
    """The NL facts: the grouping's attribute said by its phrase, the other conditions by their labels."""
    attr = spec["grouping"]["attribute"]
    outer = scope_of([f for f in spec["filters"] if f["attribute"] != attr])
    outer.conditions[attr] = [spec["grouping"]["phrase"]]
    outer.literals.append(spec["grouping"]["phrase"])
    if comparison is not None:
        outer.comparison = comparison
        outer.literals.append(comparison[1])
    return QueryFacts(outer, list(projected), False, list(aggregates), [], None, None)


def _grouping(attr, g, shown) -> dict:
    return {"attribute": attr, "phrase": g.phrase, "parent": g.parent, "members": list(shown)}


class _Grouped(ComputedFamily):
    def applicable(self, m):
        return m.measure.knowledge is not None and bool(grouping_options(m))

    def exhausted(self, m):
        return not grouping_options(m)


class FuzzyQuery(_Grouped):
    """An aggregate of the cells of a grouping's labels (named by its phrase), every other condition kept."""

    family_id = "fuzzy_query"
    treb_skill, treb_subtask = "TBO", "table_query"
    nl = NLRequirements(36, (("EXPR",),), frozenset({"EXPR"}))

    def draw(self, m, rng, variety):
        attr, g, shown = rng.choice(grouping_options(m))
        return {"computation": "grouped_aggregate", "function": rng.choice(list(m.measure.aggregations)),
                "filters": grouped_filters(m, rng, attr, shown), "grouping": _grouping(attr, g, shown)}, {}

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, spec)
        fn = spec["function"]
        if len(sel) < 2 or adds_across_parts({"select": [{"kind": "aggregate", "function": fn}]}, sel, m):
            return None
        return answer_text(_aggregate(fn, values_of(m.rows, sel)))

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [spec["function"]]}

    def statement(self, spec, m):
        sql = f"SELECT {_SQL_AGG[spec['function']]}({value_sql()}) FROM {from_sql()}{where_sql(spec['filters'])}"
        return sql, grouping_facts(spec, aggregates=[spec["function"]]), len(filtered_rows(m.rows, spec))

    def cross_check(self, spec, table):
        return format_number(float(_NUMPY_AGG[spec["function"]](table.columns.values(spec["filters"]))))


class SemanticSelection(_Grouped):
    """Which of a grouping's labels (named by its phrase) have a value above (below) a threshold."""

    family_id = "semantic_selection"
    treb_skill, treb_subtask = "TBO", "table_selection"
    single_answer = False
    nl = NLRequirements(37, (("OPPATTR",), ("OPANDVAL",)), frozenset({"OPPATTR", "OPANDVAL"}))

    def draw(self, m, rng, variety):
        attr, g, shown = rng.choice(grouping_options(m))
        filters = grouped_filters(m, rng, attr, shown)
        sel = filtered_rows(m.rows, {"filters": filters})
        i = m.rows.index[attr]
        if len(sel) < 2 or len({r[i] for r in sel}) != len(sel):
            return None  # one cell per label, or no selection by label
        xs = sorted(values_of(m.rows, sel))
        k = rng.randrange(1, len(xs))  # answers between one label and all but one
        threshold = Fraction(format_number(float((xs[k - 1] + xs[k]) / 2)))
        if not xs[k - 1] < threshold < xs[k]:
            return None  # no two-decimal number lies between them
        op = rng.choice(("<", ">"))
        return {"computation": "grouped_selection", "filters": filters, "grouping": _grouping(attr, g, shown),
                "value_condition": {"op": op, "threshold": format_number(float(threshold))}}, {}

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, spec)
        i = m.rows.index[spec["grouping"]["attribute"]]
        op, t = spec["value_condition"]["op"], Fraction(spec["value_condition"]["threshold"])
        keep = [r[i] for r, x in zip(sel, values_of(m.rows, sel)) if (x > t if op == ">" else x < t)]
        return [[label] for label in keep] or None

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "projected_attributes": [spec["grouping"]["attribute"]],
                "aggregations": [], "grouping": "none", "value_condition": True}

    def statement(self, spec, m):
        a = identifier(spec["grouping"]["attribute"])
        cond = spec["value_condition"]
        where = where_sql(spec["filters"])
        sql = f"SELECT {a} FROM {from_sql()}{where} AND {value_sql()} {cond['op']} {cond['threshold']}"
        facts = grouping_facts(spec, projected=[spec["grouping"]["attribute"]],
                               comparison=(cond["op"], cond["threshold"]))
        return sql, facts, len(filtered_rows(m.rows, spec))

    def cross_check(self, spec, table):
        t = table.columns
        mask = t.mask(spec["filters"])
        values, labels = t.value[mask], t.attrs[spec["grouping"]["attribute"]][mask]
        op, x = spec["value_condition"]["op"], float(spec["value_condition"]["threshold"])
        keep = labels[values > x] if op == ">" else labels[values < x]
        return " | ".join(str(v) for v in keep)


FAMILIES = (FuzzyQuery(), SemanticSelection())
