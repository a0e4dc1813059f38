"""Conditions on values, Table III SQL14 (the row paths whose value at a column path is below / above a
threshold) and SQL15 (the values at another column path of the row groups that pass, a nested IN)."""
from __future__ import annotations

from ...core.formatting import format_number
from ..template_syntax import NLRequirements
from .draws import VALUE_SEL, new_spec
from .registry import QuestionFamily


class ValueCondition(QuestionFamily):
    """The paths whose value passes a threshold (in a nested query for the second variant)."""

    treb_skill, treb_subtask = "TBO", "table_selection"

    def __init__(self, template_id: int, nested: bool):
        self.template_id = template_id
        self.family_id = f"q{template_id:02d}"
        words = ("OPPATTR", "OPANDVAL") + (("NESTED",) if nested else ())
        self.nl = NLRequirements(template_id, tuple((w,) for w in words), frozenset(words))
        self.nested = nested

    def draw(self, m, rng, variety):
        R, C = m.row_paths, m.col_paths
        if len(R) < 2:
            return None
        c14 = rng.choice(C)
        col_f = m.filters_for("col", [c14])
        vals = [m.cells[(rp, c14)] for rp in R if (rp, c14) in m.cells]
        if len(vals) < 2:
            return None
        # the threshold: the mean at that column path, as the question prints it
        num = float(format_number(sum(vals) / len(vals)))
        vc = {"op": rng.choice(["<", ">"]), "threshold": num}
        if not self.nested:
            sel = [{"kind": "attribute", "name": a} for a in m.row_attrs]
            return new_spec(col_f, sel, value_condition=vc), {}
        others = [c for c in C if c != c14]
        if not others:
            return None
        c15 = rng.choice(others)
        keys = [a for a in m.row_attrs if a in m.complete] or [m.row_attrs[0]]
        sel = [{"kind": "attribute", "name": a} for a in m.row_attrs] + VALUE_SEL
        sj = {"attributes": keys, "filters": col_f, "value_condition": vc}
        return new_spec(m.filters_for("col", [c15]), sel, semi_join=sj), {}

    def exhausted(self, m):
        return len(m.row_paths) < 2 or (self.nested and len(m.col_paths) < 2)


FAMILIES = (ValueCondition(14, nested=False), ValueCondition(15, nested=True))
