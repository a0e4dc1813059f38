"""TReB's plausibility-verification subtask on an HCT: the table shown with one data cell made implausible for
what it measures, and the same question on the table untouched (a control). The answer is the changed cell's
header path (every label of its row and its column, outer to inner), or `none` for the control; scored by exact
match.

An implausible value leaves the measure's declared range (seed domain_value_ranges, its unconditional row) by a
clear factor: above it by 1.5 to 4 times the range's width, below it likewise for a measure whose range reaches
below zero (a temperature far colder than any on record), or negative for a measure that cannot be (a count,
a duration, a score). The question's view of the table shows the value in the changed cell (a grid change,
generator_py.render.grid_changes `set_value`); the table's shown aggregates are left as they were, as a typo
in one cell would leave them. The cross-check reads the cell's header path from the built relational rows and
checks the value against the range the spec states.
"""
from __future__ import annotations

from ...core.formatting import format_cell_number
from ..spec import filtered_rows, identifier
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, facts_for, from_sql, where_sql

NONE = "none"  # the answer on the untouched table
FACTORS = (1.5, 4.0)  # how many range widths beyond the range an implausible value lies


def implausible_value(kind: str, low: float, high: float, is_integer: bool, u: float) -> float:
    """The value of `kind` (above_range, below_range, negative) for a measure of range [low, high], `u` in [0, 1]."""
    width = high - low
    k = FACTORS[0] + (FACTORS[1] - FACTORS[0]) * u
    if kind == "above_range":
        x = high + k * width
    elif kind == "below_range":
        x = low - k * width
    else:  # negative: about a typical value's size, below zero
        x = -(0.2 + 0.8 * u) * max(abs(high), 1.0)
    return float(round(x)) if is_integer else round(x, 2)


def implausible(value: float, kind: str, low: float, high: float) -> bool:
    """Whether `value` is as implausible as `kind` says for the range [low, high] (what the cross-check asks)."""
    width = high - low
    if kind == "above_range":
        return value >= high + FACTORS[0] * width - 0.5
    if kind == "below_range":
        return value <= low - FACTORS[0] * width + 0.5
    return value < 0 <= low


def cell_path(m, rp, cp) -> list[str]:
    return [x for x in rp if x is not None] + [x for x in cp if x is not None]


class Plausibility(ComputedFamily):
    """One implausible value planted in the table (answer: its header path) and the table untouched (`none`)."""

    family_id = "plausibility"
    treb_skill, treb_subtask = "TU", "plausibility_verification"
    variants = 2
    repeats_question = True
    single_answer = False
    nl = NLRequirements(33)

    def applicable(self, m):
        return m.measure.knowledge is not None

    def draw(self, m, rng, variety):
        return self.draw_next(m, rng, variety, [])

    def draw_next(self, m, rng, variety, asked):
        k = m.measure.knowledge
        low, high = k.value_range
        if asked:  # the control: the same question on the table as it is
            if len(asked) > 1:
                return None
            return {**asked[0], "filters": [], "row_path": None, "col_path": None, "implausible": None}, {}
        rp, cp = rng.choice(list(m.cells))
        kind = rng.choice(["above_range", "negative" if low >= 0 else "below_range"])
        value = implausible_value(kind, low, high, k.value_is_integer, rng.random())
        text = format_cell_number(value, m.table.value_is_integer)
        return {"computation": "plausibility", "filters": m.filters_for("row", [rp]) + m.filters_for("col", [cp]),
                "row_path": [x for x in rp if x is not None], "col_path": [x for x in cp if x is not None],
                "implausible": {"kind": kind, "value": value, "text": text}, "declared_range": [low, high]}, {}

    def exhausted(self, m):
        return True

    def compute(self, spec, m, extra):
        if spec["implausible"] is None:
            return [[NONE]]
        sel = filtered_rows(m.rows, spec)
        if len(sel) != 1:
            return None
        row = sel[0]
        labels = [row[m.rows.index[a]] for a in m.row_attrs + m.col_attrs]
        return [[x for x in labels if x is not None]]

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "projected_attributes": list(m.row_attrs + m.col_attrs),
                "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        if spec["implausible"] is None:
            return f"SELECT '{NONE}'", facts_for([]), 0
        names = ", ".join(identifier(a) for a in m.row_attrs + m.col_attrs)
        # the cell it names (its labels; NULL where its branch stops early), not the value it shows
        return f"SELECT {names} FROM {from_sql()}{where_sql(spec['filters'])}", facts_for([]), 1

    def rendering_change(self, spec, extra):
        planted = spec["implausible"]
        change = None if planted is None else {"kind": "set_value", "row_path": spec["row_path"],
                                               "col_path": spec["col_path"], "text": planted["text"]}
        return {"hides_caption": False, "blank_cell": None, "grid_change": change}

    def cross_check(self, spec, table):
        planted = spec["implausible"]
        if planted is None:
            return NONE
        t = table.columns
        mask = t.mask(spec["filters"])
        if int(mask.sum()) != 1 or not implausible(planted["value"], planted["kind"], *spec["declared_range"]):
            return "no single implausible cell"
        i = int(mask.nonzero()[0][0])
        labels = [t.attrs[a][i] for a in t.row_attributes + t.col_attributes]
        return " | ".join(str(x) for x in labels if x is not None)


FAMILIES = (Plausibility(),)
