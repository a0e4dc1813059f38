"""TReB's domain-specific operations on an HCT: formulas a question states, answered exactly from the
relational table. `index_to_base` (a cell as an index of the same cell in a base year = 100), `cagr` (the
compound annual growth rate between two years of one cell), `share_of_total` (one cell as a percentage of
the sum of a selection holding it), `weighted_average` (2-4 cells differing in one attribute, each weighted by
a whole number from 1 to 5 the question states). The growth rate between two cells is `pct_change`
(computation.py).

Exactness as in computation.py: exact rationals, one final root for `cagr`, two decimals with near-tie
draws redrawn. Each `cross_check` recomputes the answer in floats with numpy from the built relational rows.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from sqlglot import exp

from ...core.formatting import format_number
from ..spec import filtered_rows, identifier
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, answer_text, facts_for, from_sql, value_sql, values_of, where_sql
from .draws import adds_across_parts, sample as pick, sibling_cells
from .unanswerable import year_attributes


def _cell(m, spec_filters) -> Fraction | None:
    sel = filtered_rows(m.rows, {"filters": spec_filters})
    return values_of(m.rows, sel)[0] if len(sel) == 1 else None


def _two_years(m, rng) -> dict | None:
    """One cell's conditions in two years of the table (earlier first), the rest of its path kept."""
    attr = rng.choice(year_attributes(m))
    years = sorted(m.order[attr])
    if len(years) < 2:
        return None
    y0, y1 = sorted(rng.sample(years, 2))
    rp, cp = rng.choice(m.row_paths), rng.choice(m.col_paths)
    rest = [f for f in m.filters_for("row", [rp]) + m.filters_for("col", [cp]) if f["attribute"] != attr]
    return {"year_attribute": attr, "first": rest + [{"attribute": attr, "values": [y0]}],
            "second": rest + [{"attribute": attr, "values": [y1]}]}


class _YearPair(ComputedFamily):
    computation = ""

    def applicable(self, m):
        return any(len(m.order[a]) >= 2 for a in year_attributes(m))

    def draw(self, m, rng, variety):
        drawn = _two_years(m, rng)
        return None if drawn is None else ({"computation": self.computation, **drawn}, {})

    def pair(self, spec, m):
        return _cell(m, spec["first"]), _cell(m, spec["second"])

    def sides_sql(self, spec) -> tuple[str, str]:
        v, t = value_sql(), from_sql()
        return (f"(SELECT {v} FROM {t}{where_sql(spec['first'])})", f"(SELECT {v} FROM {t}{where_sql(spec['second'])})")


class IndexToBaseYear(_YearPair):
    """100 * the cell's value in a later year / its value in the base year (earlier), base nonzero."""

    family_id = "index_to_base"
    computation = "index"
    treb_skill, treb_subtask = "TCO", "domain_specific_operations"
    nl = NLRequirements(24, (("NESTED",),), frozenset({"NESTED"}))

    def compute(self, spec, m, extra):
        base, x = self.pair(spec, m)
        if base is None or x is None or base == 0:
            return None
        return answer_text(100 * x / base)

    def statement(self, spec, m):
        base, x = self.sides_sql(spec)
        return f"SELECT 100.0 * {x} / {base}", facts_for(spec["first"], spec["second"]), 2

    def cross_check(self, spec, table):
        t = table.columns
        return format_number(t.single(spec["second"]) / t.single(spec["first"]) * 100.0)


class CompoundAnnualGrowthRate(_YearPair):
    """100 * ((later / earlier) ** (1 / years between) - 1) of one cell, both values positive."""

    family_id = "cagr"
    computation = "cagr"
    treb_skill, treb_subtask = "TCO", "domain_specific_operations"
    nl = NLRequirements(25, (("NESTED",),), frozenset({"NESTED"}))

    @staticmethod
    def years(spec) -> int:
        year = {k: next(f["values"][0] for f in spec[k] if f["attribute"] == spec["year_attribute"])
                for k in ("first", "second")}
        return int(year["second"]) - int(year["first"])

    def compute(self, spec, m, extra):
        a, b = self.pair(spec, m)
        if a is None or b is None or a <= 0 or b <= 0:
            return None
        return answer_text(100 * ((b / a) ** (1.0 / self.years(spec)) - 1))

    def statement(self, spec, m):
        a, b = self.sides_sql(spec)
        sql = f"SELECT 100.0 * (POWER({b} / {a}, 1.0 / {self.years(spec)}) - 1)"
        return sql, facts_for(spec["first"], spec["second"]), 2

    def cross_check(self, spec, table):
        t = table.columns
        ratio = t.single(spec["second"]) / t.single(spec["first"])
        return format_number(100.0 * (ratio ** (1.0 / self.years(spec)) - 1.0))


class ShareOfTotal(ComputedFamily):
    """100 * one cell / the sum of a selection of 3-6 cells holding it (one row path or one column path),
    for a measure that adds up, every value positive."""

    family_id = "share_of_total"
    treb_skill, treb_subtask = "TCO", "domain_specific_operations"
    nl = NLRequirements(26, (("NESTED",),), frozenset({"NESTED"}))

    def applicable(self, m):
        return "sum" in m.measure.aggregations and (len(m.row_paths) >= 3 or len(m.col_paths) >= 3)

    def draw(self, m, rng, variety):
        if len(m.col_paths) >= 3 and (len(m.row_paths) < 3 or rng.random() < 0.5):
            rp, cps = rng.choice(m.row_paths), pick(rng, m.col_paths, 3, 6)
            cell = m.filters_for("row", [rp]) + m.filters_for("col", [rng.choice(cps)])
            total = m.filters_for("row", [rp]) + m.filters_for("col", cps)
        else:
            cp, rps = rng.choice(m.col_paths), pick(rng, m.row_paths, 3, 6)
            cell = m.filters_for("row", [rng.choice(rps)]) + m.filters_for("col", [cp])
            total = m.filters_for("row", rps) + m.filters_for("col", [cp])
        return {"computation": "share", "first": cell, "second": total}, {}

    def compute(self, spec, m, extra):
        x = _cell(m, spec["first"])
        sel = filtered_rows(m.rows, {"filters": spec["second"]})
        if x is None or len(sel) < 3 or adds_across_parts({"select": [{"kind": "aggregate", "function": "sum"}]},
                                                          sel, m):
            return None
        xs = values_of(m.rows, sel)
        if min(xs) <= 0 or x not in xs:
            return None
        return answer_text(100 * x / sum(xs, Fraction(0)))

    def statement(self, spec, m):
        v, t = value_sql(), from_sql()
        sql = (f"SELECT 100.0 * (SELECT {v} FROM {t}{where_sql(spec['first'])}) / "
               f"(SELECT SUM({v}) FROM {t}{where_sql(spec['second'])})")
        n = len(filtered_rows(m.rows, {"filters": spec["second"]}))
        return sql, facts_for(spec["first"], spec["second"], ["sum"]), n

    def cross_check(self, spec, table):
        t = table.columns
        return format_number(100.0 * t.single(spec["first"]) / float(t.values(spec["second"]).sum()))


class WeightedAverage(ComputedFamily):
    """sum(weight x value) / sum(weights) over 2-4 cells differing in one attribute, weights stated per label."""

    family_id = "weighted_average"
    treb_skill, treb_subtask = "TCO", "domain_specific_operations"
    nl = NLRequirements(38)

    def draw(self, m, rng, variety):
        drawn = sibling_cells(m, rng)
        if drawn is None:
            return None
        filters, attribute = drawn
        labels = next(f["values"] for f in filters if f["attribute"] == attribute)
        weights = [rng.randint(1, 5) for _ in labels]
        if len(set(weights)) < 2:  # equal weights: a plain average
            return None
        return {"computation": "weighted_average", "filters": filters, "attribute": attribute,
                "weights": [[label, w] for label, w in zip(labels, weights)]}, {}

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, spec)
        i = m.rows.index[spec["attribute"]]
        weight = dict((label, w) for label, w in spec["weights"])
        if len(sel) != len(weight) or {r[i] for r in sel} != set(weight):
            return None  # one cell per weighted label
        xs = values_of(m.rows, sel)
        total = sum((weight[r[i]] * x for r, x in zip(sel, xs)), Fraction(0))
        return answer_text(total / sum(weight.values()))

    def finish_question(self, text, spec):
        parts = [f"{label} by {w}" for label, w in spec["weights"]]
        return (f"{text} Weight {', '.join(parts[:-1])} and {parts[-1]}: the weighted average is the sum of "
                f"weight × value divided by the sum of the weights.")

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": ["avg"]}

    def statement(self, spec, m):
        a = identifier(spec["attribute"])
        case = "CASE " + " ".join(f"WHEN {a} = {exp.Literal.string(label).sql(dialect='duckdb')} THEN {w}"
                                  for label, w in spec["weights"]) + " END"
        sql = f"SELECT SUM({value_sql()} * {case}) / SUM({case}) FROM {from_sql()}{where_sql(spec['filters'])}"
        return sql, facts_for(spec["filters"]), len(spec["weights"])

    def cross_check(self, spec, table):
        t = table.columns
        mask = t.mask(spec["filters"])
        weight = {label: w for label, w in spec["weights"]}
        labels = t.attrs[spec["attribute"]][mask]
        return format_number(float(np.average(t.value[mask], weights=[weight[x] for x in labels])))


FAMILIES = (IndexToBaseYear(), CompoundAnnualGrowthRate(), ShareOfTotal(), WeightedAverage())
