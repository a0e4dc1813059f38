"""An aggregate the HCT displays, Table III SQL5: the question asks for a total (or average, ...) cell
of the table, and the SQL computes it from the data cells."""
from __future__ import annotations

from ...core.formatting import format_number
from ..template_syntax import NLRequirements
from .draws import EXPR, new_spec
from .registry import QuestionFamily


def _group_filters(m, axis: str, group: tuple) -> list[dict]:
    if not group:
        return []
    attrs = m.row_attrs if axis == "row" else m.col_attrs
    fl = [{"attribute": attrs[j], "values": [label]} for j, label in enumerate(group)]
    # one level per hierarchical code (the deepest)
    keep = {}
    for j, f in enumerate(fl):
        keep[m.attr_info[f["attribute"]].code] = j
    return [f for j, f in enumerate(fl) if keep[m.attr_info[f["attribute"]].code] == j]


class ShownAggregate(QuestionFamily):
    """An aggregate cell the table displays, computed from the data cells."""

    # the table prints the answer: finding the aggregate cell is a retrieval, computing it is not needed
    treb_skill, treb_subtask = "TU", "table_retrieval"

    family_id = "q05"
    template_id = 5
    nl = NLRequirements(5, (EXPR,), frozenset(EXPR))
    aggregate_in_table = True

    def applicable(self, m):
        return bool(m.table.shown_aggregates)

    def draw(self, m, rng, variety):
        shown = list(m.table.shown_aggregates)
        if not shown:
            return None
        agg = rng.choice(shown)
        filters = _group_filters(m, "row", agg.row_group) + _group_filters(m, "col", agg.col_group)
        if not agg.row_group and not agg.col_group:
            r1 = m.row_attrs[0]
            filters = [{"attribute": r1, "values": list(m.order[r1])}]
        spec = new_spec(filters, [{"kind": "aggregate", "function": m.table.agg_fun}])
        return spec, {"shown_value": agg.value}

    def exhausted(self, m):
        return True

    def valid(self, spec, answer, sel, m, extra):
        # the computed aggregate is the displayed cell (as the table prints it)
        return format_number(answer[0][0]) == format_number(extra["shown_value"])


FAMILIES = (ShownAggregate(),)
