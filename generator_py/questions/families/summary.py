"""TReB's table-summary subtask on an HCT: a reference summary written by rule from the table, scored by text
metrics (ROUGE-L; the LLM judge where one is set). The reference is one good summary, not the only one: a model
summarising well in other words scores below 1 on ROUGE-L, which is why the judge stands beside it.

The rule writes up to four sentences: what the table shows (its caption and its attributes); its highest and
lowest values with their header paths; the total of its values, or their average for a measure that is not
summed (seed domain_value_ranges `aggregations`), per label of an attribute whose parts do not add up (imports,
exports); and, when the table shows two or more years and every part adds up, how that total (average) changed
from the first year shown to the last. Numbers print as the ground truth prints them (format_number); a table
whose average lies near a rounding tie gets no summary question (answers must not depend on float rounding).

The cross-check computes every number again with numpy from the built relational rows, following the spec's
choices (total or average, the split, the year attribute), and writes the same sentences (`sentences`).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

import numpy as np
import pandas as pd

from ...core.formatting import format_number
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, facts_for, robust
from .unanswerable import year_attributes


def attribute_words(name: str) -> str:
    return name.replace("_", " ").lower()


def sentences(spec: dict, extremes: tuple, totals: list, trend: Optional[tuple]) -> str:
    """The summary's text: `extremes` ((max, its labels), (min, its labels)); `totals` [(label or None, number)];
    `trend` (first year, last year, number then, number now) or None. Numbers as exact values (Fraction or
    float), printed by format_number."""
    caption = spec["value_name"][:1].lower() + spec["value_name"][1:]
    attrs = [attribute_words(a) for a in spec["attributes"]]
    listed = attrs[0] if len(attrs) == 1 else ", ".join(attrs[:-1]) + " and " + attrs[-1]
    (hi, hi_at), (lo, lo_at) = extremes
    out = [f"The table shows the {caption} by {listed}.",
           f"Its highest value is {format_number(float(hi))} ({', '.join(hi_at)}) and its lowest is "
           f"{format_number(float(lo))} ({', '.join(lo_at)})."]
    verb = "add up to" if spec["aggregate"] == "sum" else "average"
    if len(totals) == 1 and totals[0][0] is None:
        out.append(f"Its values {verb} {format_number(float(totals[0][1]))}.")
    else:
        parts = [f"{format_number(float(x))} for {label}" for label, x in totals]
        out.append(f"Its values {verb} {', '.join(parts[:-1])} and {parts[-1]}.")
    if trend is not None:
        y0, y1, a, b = trend
        what = "total" if spec["aggregate"] == "sum" else "average"
        fa, fb = format_number(float(a)), format_number(float(b))
        change = f"stayed at {fa}" if fa == fb else f"{'rose' if b > a else 'fell'} from {fa} to {fb}"
        out.append(f"From {y0} to {y1} the {what} {change}.")
    return " ".join(out)


def _combine(fn: str, xs: list[Fraction]) -> Fraction:
    total = sum(xs, Fraction(0))
    return total if fn == "sum" else total / len(xs)


class TableSummary(ComputedFamily):
    """A summary of the table written by rule: extremes, total or average, the change over the years shown."""

    family_id = "table_summary"
    kind = "summary"
    answer_type = "text"
    treb_skill, treb_subtask = "TU", "table_summary"
    treb_metric = "rouge_l"
    nl = NLRequirements(34)

    def draw(self, m, rng, variety):
        split = [a for a in m.row_attrs + m.col_attrs if a in m.measure.non_additive and a in m.complete]
        years = year_attributes(m)
        return {"computation": "summary", "value_name": m.table.value_name,
                "attributes": list(m.row_attrs + m.col_attrs),
                "aggregate": "sum" if "sum" in m.measure.aggregations else "avg",
                "split_by": split[0] if split else None,
                # a change over the years only where every part adds up (no split)
                "year_attribute": years[0] if years and not split and len(m.order[years[0]]) >= 2 else None}, {}

    def exhausted(self, m):
        return True

    def compute(self, spec, m, extra):
        if not m.table.value_name or any(a in m.measure.non_additive and a not in m.complete
                                         for a in m.row_attrs + m.col_attrs):
            return None
        names = m.row_attrs + m.col_attrs
        idx = [m.rows.index[a] for a in names]
        vi = m.rows.index["Value"]
        cells = [([r[i] for i in idx], Fraction(r[vi])) for r in m.rows.rows]
        hi = max(cells, key=lambda c: c[1])
        lo = min(cells, key=lambda c: c[1])
        extremes = ((hi[1], [x for x in hi[0] if x is not None]), (lo[1], [x for x in lo[0] if x is not None]))
        fn = spec["aggregate"]
        if spec["split_by"] is None:
            totals = [(None, _combine(fn, [x for _, x in cells]))]
        else:
            j = names.index(spec["split_by"])
            totals = [(label, _combine(fn, [x for ls, x in cells if ls[j] == label])) for label in m.order[spec["split_by"]]]
        trend = None
        if spec["year_attribute"] is not None:
            j = names.index(spec["year_attribute"])
            years = sorted(m.order[spec["year_attribute"]])
            ends = [_combine(fn, [x for ls, x in cells if ls[j] == y]) for y in (years[0], years[-1])]
            trend = (years[0], years[-1], *ends)
        numbers = [x for _, x in totals] + (list(trend[2:]) if trend else [])
        if not all(robust(x) for x in numbers):
            return None
        return [[sentences(spec, extremes, totals, trend)]]

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [spec["aggregate"]]}

    def statement(self, spec, m):
        return None, facts_for([]), len(m.rows.rows)

    def cross_check(self, spec, table):
        t = table.columns
        names = t.row_attributes + t.col_attributes
        labels = np.column_stack([t.attrs[n] for n in names])  # one row of labels per cell (None: branch ends)
        at = lambda i: [str(x) for x in labels[i] if x is not None]  # noqa: E731
        extremes = ((t.value.max(), at(int(np.argmax(t.value)))), (t.value.min(), at(int(np.argmin(t.value)))))
        how = np.sum if spec["aggregate"] == "sum" else np.mean
        if spec["split_by"] is None:
            totals = [(None, how(t.value))]
        else:
            parts = t.attrs[spec["split_by"]]
            totals = [(label, how(t.value[parts == label])) for label in pd.unique(parts)]
        trend = None
        if spec["year_attribute"] is not None:
            years = t.attrs[spec["year_attribute"]]
            first, last = min(years), max(years)
            trend = (first, last, how(t.value[years == first]), how(t.value[years == last]))
        return sentences(spec, extremes, totals, trend)


FAMILIES = (TableSummary(),)
