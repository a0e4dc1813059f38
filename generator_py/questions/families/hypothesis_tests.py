"""TReB's hypothesis testing on an HCT: "is the mean of these values higher than the mean of those?", decided by
Welch's t-test (unequal variances, one-sided, alpha 0.05) over the values the table shows. The short form answers
yes or no; the long form (half the questions) also gives the test's p value to two significant digits, so its
answer is one row of two values.

The two samples are two groups of cells: two labels of one attribute (every cell of each), two rows or two
columns of the table, each of at least three values. Answers are balanced by the draw: it picks the answer
(yes with probability one half), then takes the first candidate pair, in a random order, whose test gives it
(the first pair when none does), so that over the family between 30 and 70 % of the answers are yes; a CI-scale
build's share is in BENCHMARKS.md and the e2e suite checks the bounds. The p value: families/statistics.py (exact
t and Welch-Satterthwaite degrees of freedom, scipy's t tail); the cross-check calls scipy.stats.ttest_ind on the
relational rows.
"""
from __future__ import annotations

import json
from typing import Optional

from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, facts_for, values_of
from .statistics import significant, two_significant, welch_p_greater, welch_p_greater_float

MIN_SAMPLE = 3
MAX_CANDIDATES = 40  # pairs tried per draw for the drawn answer
FORMS = ("short", "long")
YES, NO = "yes", "no"

WELCH_TEXT = ("Use Welch's t-test (unequal variances, one-sided) at significance level 0.05: answer yes if the "
              "difference is significant, else no.")
P_VALUE_TEXT = "Then give the test's p value to two significant digits."


def sample_pairs(m, rng) -> list[tuple[list[dict], list[dict]]]:
    """Candidate (first, second) selections of a two-sample test, in a random order: two labels of a complete
    attribute, two rows, or two columns, each of at least MIN_SAMPLE cells."""
    groups = getattr(m, "_sample_groups", None)
    if groups is None:  # the selections, made once per table
        groups = [[[{"attribute": a, "values": [x]}] for x in m.order[a]] for a in m.row_attrs + m.col_attrs
                  if a in m.complete]
        groups += [[m.filters_for(axis, [p]) for p in paths] for axis, paths in (("row", m.row_paths),
                                                                                  ("col", m.col_paths))]
        m._sample_groups = groups
    out = [(x, y) for group in groups for x in group for y in group if x is not y]
    rng.shuffle(out)
    return out


def sample_values(m, filters):
    return values_of(m.rows, filtered_rows(m.rows, {"filters": filters}))


def p_greater(m, first, second) -> Optional[float]:
    a, b = sample_values(m, first), sample_values(m, second)
    if len(a) < MIN_SAMPLE or len(b) < MIN_SAMPLE:
        return None
    return welch_p_greater(a, b)


class WelchTest(ComputedFamily):
    """Whether one group's mean is higher than another's by Welch's t-test (one-sided, alpha 0.05): yes / no,
    and in the long form the p value to two significant digits."""

    family_id = "welch_test"
    kind = "statistical"
    answer_type = "labels"
    single_answer = False  # one row of labels
    treb_skill, treb_subtask = "DA", "hypothesis_testing"
    nl = NLRequirements(47, (("NESTED",),), frozenset({"NESTED"}))

    def draw(self, m, rng, variety):
        want = rng.random() < 0.5
        form = rng.choice(FORMS)
        first_seen = None
        cells = {}  # a selection's values as floats, read once per draw
        for first, second in sample_pairs(m, rng)[:MAX_CANDIDATES]:
            a, b = (cells.setdefault(json.dumps(f), [float(x) for x in sample_values(m, f)]) for f in (first, second))
            if len(a) < MIN_SAMPLE or len(b) < MIN_SAMPLE:
                continue
            # floats pick the pair; `compute` decides it exactly (and refuses one too near the level)
            said = significant(welch_p_greater_float(a, b))
            if said is None:
                continue
            spec = {"computation": "welch_t_test", "form": form, "first": first, "second": second}
            if said == want:
                return spec, {}
            first_seen = first_seen or spec
        return (first_seen, {}) if first_seen else None

    def compute(self, spec, m, extra):
        p = p_greater(m, spec["first"], spec["second"])
        said = significant(p)
        if said is None:
            return None
        answer = [YES if said else NO]
        if spec["form"] == "long":
            printed = two_significant(p)
            if printed is None:
                return None
            answer.append(printed)
        return [answer]

    def finish_question(self, text, spec):
        return f"{text} {WELCH_TEXT}" + (f" {P_VALUE_TEXT}" if spec["form"] == "long" else "")

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": ["avg"], "grouping": "global"}

    def statement(self, spec, m):
        n = sum(len(filtered_rows(m.rows, {"filters": spec[k]})) for k in ("first", "second"))
        return None, facts_for(spec["first"], spec["second"]), n

    def cross_check(self, spec, table):
        from scipy.stats import ttest_ind

        t = table.columns
        p = float(ttest_ind(t.values(spec["first"]), t.values(spec["second"]), equal_var=False,
                            alternative="greater").pvalue)
        answer = [YES if p < 0.05 else NO]
        if spec["form"] == "long":
            answer.append(two_significant(p) or "")
        return answer


FAMILIES = (WelchTest(),)
