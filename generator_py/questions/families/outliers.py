"""TReB's outlier detection on an HCT: a copy of the table with one value moved so that the criterion the
question names holds for it and for no other value of the selection asked about; the answer is the header path
of its cell (every row and column header label, outer to inner). Controls: the table as it is, a selection where
no value meets the criterion, answer `none` (a quarter of the draws; a move that fails is redrawn, so about a
third of the questions: BENCHMARKS.md has a CI-scale build's share).

Criteria (`spec.criterion`): `zscore` (a value whose z-score, its distance from the selection's mean in sample
standard deviations, is above 3 in absolute value; selections of at least 16 values, since with n values no
z-score exceeds (n - 1) / sqrt(n)) and `iqr` (a value more than 1.5 interquartile ranges below the first quartile
or above the third, quartiles by linear interpolation; at least 8 values). A selection is one column or row of
the table, or every cell of one label of an attribute (a group).

The moved value is solved for: for `zscore` the distance from the other values' mean that gives a z-score drawn
between 3.3 and 3.9; for `iqr` 2.5 to 4 interquartile ranges beyond the quartile (the quartiles of at least 8
values do not depend on the extreme one). It is rounded to the table's unit, kept inside the measure's range and
distinct from every value of the table; then the criterion is checked exactly on the changed selection (every
value at least P_MARGIN from a bound). Tables showing aggregate cells are not asked: a moved value would
contradict them. The question's renderings show the moved value (a `set_value` grid change,
generator_py.render.grid_changes); the cross-check applies the move to the relational rows and recomputes the
criterion with numpy.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Optional

import numpy as np

from ...core.formatting import format_cell_number
from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .computed import NO_CHANGE, ComputedFamily, facts_for, value_groups, values_of
from .statistics import mean, near, quartiles, sample_variance, sum_of_squares

CRITERIA = ("zscore", "iqr")
MIN_VALUES = {"zscore": 16, "iqr": 8}
CONTROL_SHARE = 1 / 4  # of the draws; redrawn moves make controls about a third of the questions
NO_OUTLIER = "none"
Z = 3
FENCE = Fraction(3, 2)

CRITERION_TEXT = {
    "zscore": "Call a value an outlier when its z-score is above 3 in absolute value (the z-score: its difference "
              "from the mean of these values divided by their sample standard deviation, with n - 1).",
    "iqr": "Call a value an outlier when it lies more than 1.5 times the interquartile range below the first "
           "quartile or above the third quartile of these values (quartiles by linear interpolation between the "
           "sorted values).",
}
ANSWER_TEXT = (f"Answer with every row and column header label of the outlier's cell, or {NO_OUTLIER} if no value "
               "is an outlier.")


def _path(labels) -> list[str]:
    return [x for x in labels if x is not None]


def _float_outliers(criterion: str, xs: list[float]) -> Optional[list[int]]:
    """_outliers in floats, for scanning selections; None also where a value is within 1e-4 (relative to the
    spread) of a bound, which the exact computation then decides."""
    x = np.asarray(xs, float)
    if len(np.unique(x)) < 2:
        return None
    if criterion == "zscore":
        z2 = (x - x.mean()) ** 2 / x.var(ddof=1)
        if np.any(np.abs(z2 - Z * Z) <= 1e-4 * Z * Z):
            return None
        return np.flatnonzero(z2 > Z * Z).tolist()
    q1, q3 = np.percentile(x, [25, 75])
    iqr = q3 - q1
    if iqr == 0:
        return None
    low, high = q1 - 1.5 * iqr, q3 + 1.5 * iqr
    if np.any(np.minimum(np.abs(x - low), np.abs(x - high)) <= 1e-4 * iqr):
        return None
    return np.flatnonzero((x < low) | (x > high)).tolist()


def _outliers(criterion: str, xs: list[Fraction]) -> Optional[list[int]]:
    """Indices of the values meeting the criterion, exactly; None when a value lies too near a bound to call."""
    if len(set(xs)) < 2:
        return None
    if criterion == "zscore":
        mu, var = mean(xs), sample_variance(xs)
        zs = [(x - mu) ** 2 / var for x in xs]
        if any(near(z, Fraction(Z * Z), Fraction(Z * Z)) for z in zs):
            return None
        return [i for i, z in enumerate(zs) if z > Z * Z]
    q1, q3 = quartiles(xs)
    iqr = q3 - q1
    if iqr == 0:
        return None
    low, high = q1 - FENCE * iqr, q3 + FENCE * iqr
    if any(near(x, low, iqr) or near(x, high, iqr) for x in xs):
        return None
    return [i for i, x in enumerate(xs) if x < low or x > high]


def _clean_selections(m, criterion: str) -> list[list[dict]]:
    """The selections large enough for the criterion where no value meets it as the table stands (computed
    once per table and criterion, in floats; `compute` checks the one asked exactly): a moved value is then the
    only outlier, and a control has none."""
    cache = m.__dict__.setdefault("_clean_selections", {})
    if criterion not in cache:
        vi = m.rows.index["Value"]
        cache[criterion] = [f for f, n in value_groups(m) if n >= MIN_VALUES[criterion]
                            and _float_outliers(criterion, [r[vi] for r in filtered_rows(m.rows, {"filters": f})]) == []]
    return cache[criterion]


def _moved_value(criterion: str, others: list[Fraction], up: bool, rng) -> Fraction:
    """The value that, beside `others`, meets the criterion by a drawn margin (before rounding)."""
    n = len(others) + 1
    if criterion == "zscore":
        # with d = v - mean(others) and S their sum of squares, z^2 = d^2 (n-1)^3 / (n^2 S + d^2 n (n-1))
        z = min(rng.uniform(3.3, 3.9), 0.97 * (n - 1) / n ** 0.5)
        t = Fraction(z * z)
        d2 = t * n * n * sum_of_squares(others) / ((n - 1) * ((n - 1) ** 2 - t * n))
        d = Fraction(float(d2) ** 0.5)
        return mean(others) + (d if up else -d)
    placeholder = max(others) + 1 if up else min(others) - 1  # the moved value is the extreme one
    q1, q3 = quartiles(others + [placeholder])
    c = Fraction(rng.uniform(2.5, 4.0))
    return q3 + c * (q3 - q1) if up else q1 - c * (q3 - q1)


class OutlierDetection(ComputedFamily):
    """A copy of the table with one value moved to be the only outlier of a selection (or none moved: `none`);
    answer: its cell's header labels."""

    family_id = "outlier"
    kind = "statistical"
    answer_type = "labels"
    single_answer = False  # one row of labels
    treb_skill, treb_subtask = "DA", "outlier_detection"
    nl = NLRequirements(45)

    def applicable(self, m):
        return not m.table.shown_aggregates and bool(_clean_selections(m, "iqr") or _clean_selections(m, "zscore"))

    def draw(self, m, rng, variety):
        criterion = rng.choice(CRITERIA)
        options = _clean_selections(m, criterion)
        if not options and criterion == "zscore":  # no selection is large enough: the interquartile criterion
            criterion = "iqr"
            options = _clean_selections(m, criterion)
        if not options:
            return None
        filters = rng.choice(options)
        spec = {"computation": "outlier", "criterion": criterion, "filters": filters, "moved": None}
        if rng.random() < CONTROL_SHARE:
            return spec, {}
        sel = filtered_rows(m.rows, {"filters": filters})
        xs = values_of(m.rows, sel)
        i = rng.randrange(len(sel))
        up = rng.random() < 0.5
        unit = 1 if m.table.value_is_integer else Fraction(1, 100)
        shown = {Fraction(x) for x in m.cells.values()}
        labels = {label for order in m.order.values() for label in order}  # a header the moved text would echo
        low, high = m.measure.low, m.measure.high
        for direction in (up, not up):  # the drawn direction, else the other one if it leaves the range
            v = round(_moved_value(criterion, xs[:i] + xs[i + 1:], direction, rng) / unit) * unit
            if (low is not None and v < Fraction(low)) or (high is not None and v > Fraction(high)) or v in shown \
                    or format_cell_number(float(v), m.table.value_is_integer) in labels:
                continue  # outside the measure's range, or a value (a label) the table shows already
            if _outliers(criterion, xs[:i] + [v] + xs[i + 1:]) == [i]:
                break
        else:
            return None
        ri = [m.rows.index[a] for a in m.row_attrs]
        ci = [m.rows.index[a] for a in m.col_attrs]
        rp, cp = tuple(sel[i][j] for j in ri), tuple(sel[i][j] for j in ci)
        value = float(v)
        spec["moved"] = {"filters": m.filters_for("row", [rp]) + m.filters_for("col", [cp]),
                         "row_path": _path(rp), "col_path": _path(cp), "value": value,
                         "text": format_cell_number(value, m.table.value_is_integer)}
        return spec, {}

    def exhausted(self, m):
        return False

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, {"filters": spec["filters"]})
        xs = values_of(m.rows, sel)
        moved = spec["moved"]
        at = None
        if moved is not None:
            cell = filtered_rows(m.rows, {"filters": moved["filters"]})
            if len(cell) != 1 or cell[0] not in sel:
                return None
            at = sel.index(cell[0])
            xs[at] = Fraction(moved["value"])
        found = _outliers(spec["criterion"], xs)
        if found is None or found != ([] if at is None else [at]):
            return None
        return [[NO_OUTLIER]] if at is None else [moved["row_path"] + moved["col_path"]]

    def finish_question(self, text, spec):
        return f"{text} {CRITERION_TEXT[spec['criterion']]} {ANSWER_TEXT}"

    def rendering_change(self, spec, extra):
        moved = spec["moved"]
        if moved is None:
            return dict(NO_CHANGE)
        return {**NO_CHANGE, "grid_change": {"kind": "set_value", "row_path": moved["row_path"],
                                             "col_path": moved["col_path"], "text": moved["text"]}}

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        return None, facts_for(spec["filters"]), len(filtered_rows(m.rows, {"filters": spec["filters"]}))

    def cross_check(self, spec, table):
        t = table.columns
        frame = t.frame(spec["filters"], spec["moved"]).reset_index(drop=True)
        x = frame["value"].to_numpy(float)
        if spec["criterion"] == "zscore":
            hit = np.abs((x - x.mean()) / x.std(ddof=1)) > Z
        else:
            q1, q3 = np.percentile(x, [25, 75])
            hit = (x < q1 - 1.5 * (q3 - q1)) | (x > q3 + 1.5 * (q3 - q1))
        rows = np.flatnonzero(hit)
        if len(rows) == 0:
            return [NO_OUTLIER]
        return [label for r in rows for label in t.header_path(frame.iloc[r])]


FAMILIES = (OutlierDetection(),)
