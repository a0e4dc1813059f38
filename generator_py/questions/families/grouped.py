"""Aggregates per group, Table III SQL8 (per column path of several) and SQL9-11 (per label of the first
row attribute; SQL10 reports the group, SQL11 also per column path)."""
from __future__ import annotations

from ..template_syntax import NLRequirements
from .draws import EXPR, adds_across_parts, aggregates, new_spec, ordered_by, paths
from .registry import QuestionFamily

_NL_ALLOWED = frozenset(EXPR + ("GROUPBY",))


class _Grouped(QuestionFamily):
    treb_skill, treb_subtask = "TCO", "general_operations"

    def __init__(self, template_id: int):
        self.template_id = template_id
        self.family_id = f"q{template_id:02d}"
        self.nl = NLRequirements(template_id, (EXPR, ("GROUPBY",)), _NL_ALLOWED)

    def valid(self, spec, answer, sel, m, extra):
        return not adds_across_parts(spec, sel, m) and (len(answer) >= 2 or len(m.row_paths) <= 1)


class PerColumnPath(_Grouped):
    """SQL8: aggregates of several row paths, per column path."""

    def draw(self, m, rng, variety):
        gb = list(m.col_attrs)
        sel = [{"kind": "attribute", "name": a} for a in gb] + aggregates(rng, variety, m.measure.aggregations)
        filters = m.filters_for("row", paths(m, "row", "many", rng))
        filters += m.filters_for("col", paths(m, "col", "many", rng))
        return new_spec(filters, sel, group_by=gb, order_by=ordered_by(gb)), {}


class PerRowGroup(_Grouped):
    """Aggregates of several row paths per label of the first row attribute, at one column path or per column
    path of several (`per_column_path`); `reports_group`: the answer names the group; `paper_min`: MIN in
    the paper's variety where the measure admits it."""

    def __init__(self, template_id: int, reports_group: bool, per_column_path: bool, paper_min: bool = False):
        super().__init__(template_id)
        self.reports_group, self.per_column_path, self.paper_min = reports_group, per_column_path, paper_min

    def draw(self, m, rng, variety):
        allowed = m.measure.aggregations
        gb = [m.row_attrs[0]] + (list(m.col_attrs) if self.per_column_path else [])
        if self.paper_min and variety == "paper" and "min" in allowed:
            aggs = [{"kind": "aggregate", "function": "min"}]
        else:
            aggs = aggregates(rng, variety, allowed, 1)
        sel = ([{"kind": "attribute", "name": a} for a in gb] if self.reports_group else []) + aggs
        cols = paths(m, "col", "many" if self.per_column_path else "one", rng)
        filters = m.filters_for("row", paths(m, "row", "many", rng)) + m.filters_for("col", cols)
        return new_spec(filters, sel, group_by=gb, order_by=ordered_by(gb)), {}


FAMILIES = (PerColumnPath(8), PerRowGroup(9, reports_group=False, per_column_path=False, paper_min=True),
            PerRowGroup(10, reports_group=True, per_column_path=False),
            PerRowGroup(11, reports_group=True, per_column_path=True))
