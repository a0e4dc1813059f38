"""Aggregates over a selection, Table III SQL4 (one row path, several column paths) and SQL7 (several row
paths, one column path): one global aggregate, or two in the paper's variety."""
from __future__ import annotations

from ..template_syntax import NLRequirements
from .draws import EXPR, adds_across_parts, aggregates, new_spec, paths
from .registry import QuestionFamily


class SelectionAggregate(QuestionFamily):
    """A global aggregate over a selection of row paths and column paths."""

    treb_skill, treb_subtask = "TCO", "general_operations"

    def __init__(self, template_id: int, rows: str, cols: str):
        self.template_id = template_id
        self.family_id = f"q{template_id:02d}"
        self.nl = NLRequirements(template_id, (EXPR,), frozenset(EXPR))
        self.rows, self.cols = rows, cols

    def draw(self, m, rng, variety):
        row_f = m.filters_for("row", paths(m, "row", self.rows, rng))
        filters = row_f + m.filters_for("col", paths(m, "col", self.cols, rng))
        return new_spec(filters, aggregates(rng, variety, m.measure.aggregations)), {}

    def valid(self, spec, answer, sel, m, extra):
        # an aggregate over one cell says nothing a lookup does not
        return not adds_across_parts(spec, sel, m) and len(sel) >= 2


FAMILIES = (SelectionAggregate(4, "one", "many"), SelectionAggregate(7, "many", "one"))
