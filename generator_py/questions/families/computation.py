"""TReB's data-analysis computations on an HCT, answered exactly from the relational table: the sample
standard deviation and the median of a selection, the percentage change between two cells, the ratio of
two aggregates, and the Pearson correlation between two rows or two columns of values (its coefficient, and
its direction and strength against thresholds the question states).

Exactness: values are read as exact rationals (`Fraction` of the stored float) and every step is exact up
to the one final square root (standard deviation, correlation); the answer prints through format_number
(two decimals, ties half up), and an instance whose exact value lies within ROUNDING_MARGIN of a tie is
redrawn, so two correct float computations cannot print different answers. Each family's `cross_check`
recomputes its answer in floats with numpy from the built relational rows (generator_py.answers.computed_cross_check).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional

import numpy as np

from ...core.formatting import format_number
from ..spec import filtered_rows, identifier
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, answer_text, facts_for, from_sql, value_sql, values_of, where_sql
from .draws import adds_across_parts, sample as pick

_SQL_AGG = {"sum": "SUM", "avg": "AVG", "min": "MIN", "max": "MAX"}
_NUMPY_AGG = {"sum": np.sum, "avg": np.mean, "min": np.min, "max": np.max}  # the cross-check's arithmetic


def _aggregate(fn: str, xs: list[Fraction]) -> Fraction:
    return {"sum": lambda: sum(xs, Fraction(0)), "avg": lambda: sum(xs, Fraction(0)) / len(xs),
            "min": lambda: min(xs), "max": lambda: max(xs)}[fn]()


def _one_cell(m, rp, cp) -> list[dict]:
    return m.filters_for("row", [rp]) + m.filters_for("col", [cp])


def _selection(m, rng) -> list[dict]:
    """One row path at three to six column paths, or three to six row paths at one column path."""
    if len(m.col_paths) >= 3 and (len(m.row_paths) < 3 or rng.random() < 0.5):
        return m.filters_for("row", [rng.choice(m.row_paths)]) + m.filters_for("col", pick(rng, m.col_paths, 3, 6))
    return m.filters_for("row", pick(rng, m.row_paths, 3, 6)) + m.filters_for("col", [rng.choice(m.col_paths)])


class _SelectionStatistic(ComputedFamily):
    """A statistic of the values of one selection (at least three cells, not all equal)."""

    computation = ""
    sql_function = ""

    def draw(self, m, rng, variety):
        return {"computation": self.computation, "filters": _selection(m, rng)}, {}

    def exhausted(self, m):
        return len(m.row_paths) < 3 and len(m.col_paths) < 3

    def compute(self, spec, m, extra):
        xs = values_of(m.rows, filtered_rows(m.rows, spec))
        if len(xs) < 3 or len(set(xs)) < 2:
            return None
        return answer_text(self.statistic(xs))

    def statistic(self, xs: list[Fraction]) -> float | Fraction:
        raise NotImplementedError

    def check_statistic(self, values: np.ndarray) -> float:
        raise NotImplementedError

    def cross_check(self, spec, table):
        return format_number(float(self.check_statistic(table.columns.values(spec["filters"]))))

    def statement(self, spec, m):
        sql = f"SELECT {self.sql_function}({value_sql()}) FROM {from_sql()}{where_sql(spec['filters'])}"
        return sql, facts_for(spec["filters"]), len(filtered_rows(m.rows, spec))


class StandardDeviation(_SelectionStatistic):
    """The sample standard deviation (denominator n - 1; the question says so)."""

    family_id = "stdev"
    treb_skill, treb_subtask = "TCO", "general_operations"
    computation = "stddev_samp"
    sql_function = "STDDEV_SAMP"
    nl = NLRequirements(16)

    def statistic(self, xs):
        mean = sum(xs, Fraction(0)) / len(xs)
        var = sum(((x - mean) ** 2 for x in xs), Fraction(0)) / (len(xs) - 1)
        return math.sqrt(var)

    def check_statistic(self, values):
        return np.std(values, ddof=1)


class Median(_SelectionStatistic):
    """The median (the mean of the two middle values for an even count)."""

    family_id = "median"
    treb_skill, treb_subtask = "TCO", "general_operations"
    computation = "median"
    sql_function = "MEDIAN"
    nl = NLRequirements(17)

    def statistic(self, xs):
        s = sorted(xs)
        n = len(s)
        return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

    def check_statistic(self, values):
        return np.median(values)


class PercentageChange(ComputedFamily):
    """100 * (second - first) / first between two cells on one row path (or one column path)."""

    family_id = "pct_change"
    treb_skill, treb_subtask = "NLU", "mathematical_reasoning"
    nl = NLRequirements(18, (("NESTED",),), frozenset({"NESTED"}))

    def draw(self, m, rng, variety):
        if len(m.col_paths) >= 2 and (len(m.row_paths) < 2 or rng.random() < 0.5):
            rp = rng.choice(m.row_paths)
            a, b = rng.sample(m.col_paths, 2)
            first, second = _one_cell(m, rp, a), _one_cell(m, rp, b)
        elif len(m.row_paths) >= 2:
            cp = rng.choice(m.col_paths)
            a, b = rng.sample(m.row_paths, 2)
            first, second = _one_cell(m, a, cp), _one_cell(m, b, cp)
        else:
            return None
        return {"computation": "pct_change", "first": first, "second": second}, {}

    def exhausted(self, m):
        return len(m.row_paths) < 2 and len(m.col_paths) < 2

    def compute(self, spec, m, extra):
        a = filtered_rows(m.rows, {"filters": spec["first"]})
        b = filtered_rows(m.rows, {"filters": spec["second"]})
        if len(a) != 1 or len(b) != 1:
            return None
        x, y = values_of(m.rows, a)[0], values_of(m.rows, b)[0]
        if x == 0:
            return None
        return answer_text(100 * (y - x) / x)

    def statement(self, spec, m):
        v, t = value_sql(), from_sql()
        first = f"(SELECT {v} FROM {t}{where_sql(spec['first'])})"
        second = f"(SELECT {v} FROM {t}{where_sql(spec['second'])})"
        return (f"SELECT 100.0 * ({second} - {first}) / {first}", facts_for(spec["first"], spec["second"]), 2)

    def cross_check(self, spec, table):
        a, b = table.columns.single(spec["first"]), table.columns.single(spec["second"])
        return format_number((b - a) / a * 100.0)


class AggregateRatio(ComputedFamily):
    """The ratio of one aggregate over two groups: two labels of the first row attribute at one column path."""

    family_id = "agg_ratio"
    treb_skill, treb_subtask = "NLU", "mathematical_reasoning"
    nl = NLRequirements(19, (("NESTED",), ("EXPR",)), frozenset({"NESTED", "EXPR"}))

    def draw(self, m, rng, variety):
        r1 = m.row_attrs[0]
        labels = list(m.order[r1])
        if len(labels) < 2:
            return None
        la, lb = rng.sample(labels, 2)
        col = m.filters_for("col", [rng.choice(m.col_paths)])
        fn = rng.choice(list(m.measure.aggregations))
        return {"computation": "ratio", "function": fn, "first": [{"attribute": r1, "values": [la]}] + col,
                "second": [{"attribute": r1, "values": [lb]}] + col}, {}

    def exhausted(self, m):
        return len(m.order[m.row_attrs[0]]) < 2

    def compute(self, spec, m, extra):
        fn = spec["function"]
        parts = []
        for key in ("first", "second"):
            sel = filtered_rows(m.rows, {"filters": spec[key]})
            agg_spec = {"select": [{"kind": "aggregate", "function": fn}]}
            if len(sel) < 2 or adds_across_parts(agg_spec, sel, m):
                return None  # one cell is no aggregate; a sum across a non-additive split means nothing
            parts.append(_aggregate(fn, values_of(m.rows, sel)))
        if parts[1] == 0:
            return None
        return answer_text(parts[0] / parts[1])

    def statement(self, spec, m):
        fn, v, t = _SQL_AGG[spec["function"]], value_sql(), from_sql()
        first = f"(SELECT {fn}({v}) FROM {t}{where_sql(spec['first'])})"
        second = f"(SELECT {fn}({v}) FROM {t}{where_sql(spec['second'])})"
        n = len(filtered_rows(m.rows, {"filters": spec["first"]})) + len(filtered_rows(m.rows, {"filters": spec["second"]}))
        return f"SELECT {first} / {second}", facts_for(spec["first"], spec["second"], [spec["function"]]), n

    def cross_check(self, spec, table):
        fn = _NUMPY_AGG[spec["function"]]
        t = table.columns
        return format_number(float(fn(t.values(spec["first"]))) / float(fn(t.values(spec["second"]))))


def pairs(m, spec) -> Optional[list[tuple[Fraction, Fraction]]]:
    """The value pairs of a correlation: the cells of its two series that share the other axis' path."""
    axis = spec["paired_by"]
    idx = [m.rows.index[a] for a in (m.col_attrs if axis == "col" else m.row_attrs)]
    series = []
    for key in ("first", "second"):
        sel = filtered_rows(m.rows, {"filters": spec[key]})
        by_path = {}
        for r, x in zip(sel, values_of(m.rows, sel)):
            path = tuple(r[i] for i in idx)
            if path in by_path:
                return None  # the series has two cells at one path: no pairing
            by_path[path] = x
        series.append(by_path)
    return [(series[0][p], series[1][p]) for p in series[0] if p in series[1]]


class Correlation(ComputedFamily):
    """Pearson's r between two row paths (paired by column path) or two column paths (paired by row path)."""

    family_id = "correlation"
    treb_skill, treb_subtask = "DA", "correlation_analysis"
    nl = NLRequirements(20, (("NESTED",),), frozenset({"NESTED"}))

    def draw(self, m, rng, variety):
        rows_ok, cols_ok = len(m.row_paths) >= 2 and len(m.col_paths) >= 3, len(m.col_paths) >= 2 and len(m.row_paths) >= 3
        if rows_ok and (not cols_ok or rng.random() < 0.5):
            a, b = rng.sample(m.row_paths, 2)
            return {"computation": "correlation", "paired_by": "col", "first": m.filters_for("row", [a]),
                    "second": m.filters_for("row", [b])}, {}
        if cols_ok:
            a, b = rng.sample(m.col_paths, 2)
            return {"computation": "correlation", "paired_by": "row", "first": m.filters_for("col", [a]),
                    "second": m.filters_for("col", [b])}, {}
        return None

    def exhausted(self, m):
        return not ((len(m.row_paths) >= 2 and len(m.col_paths) >= 3) or (len(m.col_paths) >= 2 and len(m.row_paths) >= 3))

    def compute(self, spec, m, extra):
        ps = pairs(m, spec)
        if ps is None or len(ps) < 3:
            return None
        n = len(ps)
        mx = sum((x for x, _ in ps), Fraction(0)) / n
        my = sum((y for _, y in ps), Fraction(0)) / n
        sxy = sum(((x - mx) * (y - my) for x, y in ps), Fraction(0))
        sxx = sum(((x - mx) ** 2 for x, _ in ps), Fraction(0))
        syy = sum(((y - my) ** 2 for _, y in ps), Fraction(0))
        if sxx == 0 or syy == 0:
            return None
        return answer_text(float(sxy) / math.sqrt(sxx * syy))

    def statement(self, spec, m):
        keys = m.col_attrs if spec["paired_by"] == "col" else m.row_attrs
        v, t = value_sql(), from_sql()
        cols = ", ".join(identifier(k) for k in keys)
        on = " AND ".join(f"a.{c} IS NOT DISTINCT FROM b.{c}" for c in (identifier(k) for k in keys))
        sql = (f"SELECT CORR(a.{v}, b.{v}) FROM (SELECT {cols}, {v} FROM {t}{where_sql(spec['first'])}) AS a "
               f"JOIN (SELECT {cols}, {v} FROM {t}{where_sql(spec['second'])}) AS b ON {on}")
        ps = pairs(m, spec) or []
        return sql, facts_for(spec["first"], spec["second"]), 2 * len(ps)

    def cross_check(self, spec, table):
        # two rows pair their cells by column path, two columns by row path (NULL labels pair alike)
        t = table.columns
        keys = t.col_attributes if spec["paired_by"] == "col" else t.row_attributes
        a, b = t.series(spec["first"], keys), t.series(spec["second"], keys)
        shared = [k for k in a if k in b]
        return format_number(float(np.corrcoef([a[k] for k in shared], [b[k] for k in shared])[0, 1]))


# |r| at or above: the strength a direction-and-strength answer names (the question states the thresholds)
STRENGTHS = (("strong", Fraction(7, 10)), ("moderate", Fraction(3, 10)), ("weak", Fraction(0)))
STRENGTH_MARGIN = Fraction(1, 10 ** 6)  # r^2 this close to a threshold's square is not asked


def strength_label(r: float) -> str:
    """The direction-and-strength category of a correlation coefficient (the cross-check's reading)."""
    strength = next(name for name, bound in STRENGTHS if abs(r) >= bound)
    return f"{strength} {'positive' if r > 0 else 'negative'}"


class CorrelationStrength(Correlation):
    """The direction and strength of Pearson's r (strong |r| >= 0.7, moderate >= 0.3, else weak; positive or
    negative), the thresholds stated in the question; paired as `correlation`."""

    family_id = "correlation_strength"
    answer_type = "labels"
    treb_skill, treb_subtask = "DA", "correlation_analysis"
    nl = NLRequirements(46, (("NESTED",),), frozenset({"NESTED"}))

    def compute(self, spec, m, extra):
        ps = pairs(m, spec)
        if ps is None or len(ps) < 3:
            return None
        n = len(ps)
        mx = sum((x for x, _ in ps), Fraction(0)) / n
        my = sum((y for _, y in ps), Fraction(0)) / n
        sxy = sum(((x - mx) * (y - my) for x, y in ps), Fraction(0))
        sxx = sum(((x - mx) ** 2 for x, _ in ps), Fraction(0))
        syy = sum(((y - my) ** 2 for _, y in ps), Fraction(0))
        if sxx == 0 or syy == 0 or sxy == 0:
            return None
        r2 = sxy * sxy / (sxx * syy)  # exact: the thresholds compare squares
        if any(abs(r2 - bound * bound) <= STRENGTH_MARGIN for _, bound in STRENGTHS[:-1]):
            return None
        strength = next(name for name, bound in STRENGTHS if r2 >= bound * bound)
        return [[f"{strength} {'positive' if sxy > 0 else 'negative'}"]]

    def finish_question(self, text, spec):
        return (f"{text} Use Pearson's r: strong when |r| is at least 0.7, moderate when it is at least 0.3, weak "
                "below; positive or negative by its sign. Answer with the strength and the direction, e.g. "
                "strong positive.")

    def statement(self, spec, m):
        sql, facts, n = super().statement(spec, m)
        strength = " ".join(f"WHEN ABS(r) >= {float(bound)} THEN '{name}'" for name, bound in STRENGTHS[:-1])
        sql = (f"SELECT CASE {strength} ELSE 'weak' END || ' ' || CASE WHEN r > 0 THEN 'positive' "
               f"ELSE 'negative' END FROM ({sql}) AS c(r)")
        return sql, facts, n

    def cross_check(self, spec, table):
        t = table.columns
        keys = t.col_attributes if spec["paired_by"] == "col" else t.row_attributes
        a, b = t.series(spec["first"], keys), t.series(spec["second"], keys)
        shared = [k for k in a if k in b]
        return strength_label(float(np.corrcoef([a[k] for k in shared], [b[k] for k in shared])[0, 1]))


FAMILIES = (StandardDeviation(), Median(), PercentageChange(), AggregateRatio(), Correlation(), CorrelationStrength())
