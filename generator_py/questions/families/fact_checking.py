"""TReB's fact-checking subtask on an HCT: a statement that one cell holds a value, true or false with
probability one half each. A false statement's value is made by a rule of the choice items' distractors
(generator_py.choice_items.strategies): `sibling_condition` (the value of the cell one condition away, a
sibling label of the same attribute) or, where no sibling cell differs, `numeric_perturbation` (a nearby
number of the same precision). The answer is `true` or `false` (`answer_type` "boolean", exact match).
The cross-check reads the cell from the built relational rows and compares it with the stated value.
"""
from __future__ import annotations

from ...core.formatting import format_number
from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, facts_for, from_sql, value_sql, values_of, where_sql


def _cell_text(m, filters):
    sel = filtered_rows(m.rows, {"filters": filters})
    return format_number(float(values_of(m.rows, sel)[0])) if len(sel) == 1 else None


class FactCheck(ComputedFamily):
    """A statement "the cell of these conditions is V": true (V its value) or false (V a rule-made wrong value)."""

    family_id = "fact_check"
    answer_type = "boolean"
    treb_skill, treb_subtask = "TU", "fact_checking"
    nl = NLRequirements(28)

    def draw(self, m, rng, variety):
        from ...choice_items.strategies import perturbed_numbers  # the distractors' own rule

        rp, cp = rng.choice(m.row_paths), rng.choice(m.col_paths)
        filters = m.filters_for("row", [rp]) + m.filters_for("col", [cp])
        right = _cell_text(m, filters)
        if right is None:
            return None
        if rng.random() < 0.5:
            return {"computation": "fact_check", "filters": filters, "stated": right, "distractor": None}, {}
        # a sibling label on one condition, whose cell shows another value
        for fi in rng.sample(range(len(filters)), len(filters)):
            f = filters[fi]
            siblings = [v for v in m.order[f["attribute"]] if v not in f["values"]]
            for new in rng.sample(siblings, min(4, len(siblings))):
                other = [dict(g, values=[new]) if i == fi else g for i, g in enumerate(filters)]
                wrong = _cell_text(m, other)
                if wrong is not None and wrong != right:
                    return {"computation": "fact_check", "filters": filters, "stated": wrong,
                            "distractor": "sibling_condition"}, {}
        wrong = [s for s in perturbed_numbers(right, rng) if format_number(float(s)) != right]
        if not wrong:
            return None
        return {"computation": "fact_check", "filters": filters, "stated": format_number(float(wrong[0])),
                "distractor": "numeric_perturbation"}, {}

    def compute(self, spec, m, extra):
        right = _cell_text(m, spec["filters"])
        if right is None:
            return None
        return [["true" if spec["stated"] == right else "false"]]

    def finish_question(self, text, spec):
        return f"{text} {spec['stated']}. Answer true or false."

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        sql = (f"SELECT CASE WHEN ROUND({value_sql()}, 2) = {spec['stated']} THEN 'true' ELSE 'false' END "
               f"FROM {from_sql()}{where_sql(spec['filters'])}")
        return sql, facts_for(spec["filters"]), 1

    def cross_check(self, spec, table):
        return "true" if format_number(table.columns.single(spec["filters"])) == spec["stated"] else "false"


FAMILIES = (FactCheck(),)
