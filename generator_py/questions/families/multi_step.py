"""TReB's advanced data analysis (ADA) on an HCT: questions of three or more steps, each computed step by step
by its family (`solve`), its steps stored with the question (`steps_json`: the operations in order with their
intermediate results) and recomputed one by one by the cross-check (`cross_check_steps`: numpy in floats on the
relational rows, groups by np.unique and bincount; scipy's own test function for the test statistic).

- `ms_retrieval`: the total (or average, for a measure that does not add up) of each row over some columns;
  the row with the largest; its value in another column.
- `ms_fact_check`: two or three statements "this cell is higher than that one", joined by "and": true only when
  every one holds. True with probability one half; a false compound has one or more false statements.
- `ms_operations`: the maximum of one row (or column) minus the mean of another.
- `ms_correlation`: Pearson's r between two derived series: the totals (averages) per label of a key attribute
  (a year, say) of two groups (two labels of another attribute).
- `ms_hypothesis`: the totals of one group per key label, split at their median; whether another group's values
  are higher in the labels above the median than in those below, by Welch's t-test (one-sided, alpha 0.05);
  yes with probability one half as in hypothesis_tests.py.
- `ms_conditional`: the total (average) of the values above the mean of their own group (the cells of one label
  of an attribute), within the whole table or one label of another attribute.

Results print as the ground truth prints values (format_number); lists of per-group results are ordered by their
labels; p values in the steps to three significant digits. A draw whose result float arithmetic could order
differently (two totals, a value and its group's mean, a total and the median within relative 1e-9) is not asked.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional

import numpy as np

from ...core.formatting import format_number
from ..query_facts import QueryFacts
from ..spec import filtered_rows, identifier
from ..template_syntax import NLRequirements
from .computed import (ComputedFamily, Solution, Step, answer_text, facts_for, from_sql, scope_of, value_sql,
                       values_of, where_sql)
from .draws import adds_across_parts
from .hypothesis_tests import WELCH_TEXT
from .statistics import close, mean, significant, significant_digits, welch_p_greater, welch_p_greater_float

_SQL_AGG = {"sum": "SUM", "avg": "AVG", "max": "MAX"}
_WORD = {"sum": "total", "avg": "average", "max": "maximum"}
YES, NO = "yes", "no"
MIN_SAMPLE = 3  # values per side of a test between derived groups


def total_function(m) -> str:
    """How a family totals a group: its sum where the measure adds up, else its average."""
    return "sum" if "sum" in m.measure.aggregations else "avg"


def aggregate(fn: str, xs: list[Fraction]) -> Fraction:
    return sum(xs, Fraction(0)) if fn == "sum" else max(xs) if fn == "max" else mean(xs)


def spans_parts(fn: str, sel: list[tuple], m, group_by=()) -> bool:
    """A sum or average over `sel` (within one value of `group_by`) spanning two parts that do not add up."""
    return adds_across_parts({"select": [{"kind": "aggregate", "function": fn}], "group_by": list(group_by)}, sel, m)


def labels_of(m, row: tuple) -> list[str]:
    """A relational row's header path: its row labels, then its column labels, NULLs left out."""
    return [row[m.rows.index[a]] for a in m.row_attrs + m.col_attrs if row[m.rows.index[a]] is not None]


class _Unsteady(Exception):
    """A step's number lies so near a rounding boundary of its printed text that floats could print it apart."""


def number(x) -> str:
    """A step's exact number as the ground truth prints it; _Unsteady when two correct float computations of it
    could print differently (format_number first rounds to 6 decimals: x must not sit on a half of 1e-6)."""
    units = abs(float(x)) * 1e6
    if abs(units - math.floor(units) - 0.5) <= 1e-3:
        raise _Unsteady
    return format_number(float(x))


def by_label(pairs) -> list:
    """[[label or labels, result text], ...] ordered by the label(s)."""
    return sorted(([k, v] for k, v in pairs), key=lambda kv: kv[0] if isinstance(kv[0], list) else [kv[0]])


def keyed(m, filters, key: str) -> dict[str, list[tuple]]:
    """The selected rows by their label of `key`, in label order (labels without rows left out)."""
    sel = filtered_rows(m.rows, {"filters": filters})
    i = m.rows.index[key]
    return {k: [r for r in sel if r[i] == k] for k in m.order[key] if any(r[i] == k for r in sel)}


class MultiStepFamily(ComputedFamily):
    """Base of the ADA families: `solution` gives the answer and its steps (None: not asked); `solve` refuses a
    draw with an unsteady step, `compute` gives the answer alone."""

    multi_step = True
    treb_skill = "ADA"

    def solution(self, spec, m, extra) -> Optional[Solution]:
        raise NotImplementedError

    def solve(self, spec, m, extra):
        try:
            return self.solution(spec, m, extra)
        except _Unsteady:
            return None

    def compute(self, spec, m, extra):
        solution = self.solve(spec, m, extra)
        return solution.answer if solution else None


# ------------------------------------------------------------------ the cross-checks' grouping (numpy)


def group_totals(fn: str, keys: np.ndarray, values: np.ndarray) -> dict:
    """key -> the `fn` total of the values with that key (np.unique and bincount; keys are text)."""
    labels, inverse = np.unique(keys.astype(str), return_inverse=True)
    if fn == "max":
        out = np.full(len(labels), -np.inf)
        np.maximum.at(out, inverse, values)
    else:
        out = np.bincount(inverse, weights=values, minlength=len(labels))
        if fn == "avg":
            out = out / np.bincount(inverse, minlength=len(labels))
    return dict(zip(labels.tolist(), out.tolist()))


def path_keys(table, mask: np.ndarray, attributes) -> np.ndarray:
    """One text key per selected row: its labels of `attributes` (a NULL shown as an empty label) joined."""
    cols = [table.attrs[a][mask] for a in attributes]
    return np.array(["\x1f".join("" if x is None else str(x) for x in row) for row in zip(*cols)], dtype=object)


def key_path(key: str) -> list[str]:
    return [x for x in key.split("\x1f") if x]


# ------------------------------------------------------------------ retrieval


class MultiStepRetrieval(MultiStepFamily):
    """The row with the largest total over some columns, then its value in another column."""

    family_id = "ms_retrieval"
    treb_subtask = "multi_step_retrieval"
    nl = NLRequirements(50, (("NESTED",), ("EXPR",)), frozenset({"NESTED", "EXPR"}))

    def applicable(self, m):
        return len(m.row_paths) >= 3 and len(m.col_paths) >= 3

    def draw(self, m, rng, variety):
        target = rng.choice(m.col_paths)
        others = [c for c in m.col_paths if c != target]
        k = rng.randint(2, min(4, len(others)))
        cols = [others[i] for i in sorted(rng.sample(range(len(others)), k))]
        return {"computation": "ms_retrieval", "function": total_function(m), "filters": m.filters_for("col", cols),
                "second": m.filters_for("col", [target])}, {}

    def solution(self, spec, m, extra):
        fn = spec["function"]
        ri = [m.rows.index[a] for a in m.row_attrs]
        groups: dict[tuple, list[tuple]] = {}
        for r in filtered_rows(m.rows, {"filters": spec["filters"]}):
            groups.setdefault(tuple(r[i] for i in ri), []).append(r)
        if len(groups) < 3 or any(spans_parts(fn, g, m) for g in groups.values()):
            return None
        totals = {rp: aggregate(fn, values_of(m.rows, g)) for rp, g in groups.items()}
        ranked = sorted(totals.values(), reverse=True)
        if close(ranked[0], ranked[1]):
            return None  # a tie (or one floats could not break) has no largest
        best = max(totals, key=totals.get)
        target = filtered_rows(m.rows, {"filters": m.filters_for("row", [best]) + spec["second"]})
        if len(target) != 1:
            return None
        value = values_of(m.rows, target)[0]
        word = _WORD[fn]
        path = [x for x in best if x is not None]
        steps = [Step(f"the {word} of each row's values in the selected columns",
                      by_label(([x for x in rp if x is not None], number(t)) for rp, t in totals.items())),
                 Step(f"the row with the largest {word}", path),
                 Step("that row's value in the asked column", number(value))]
        return Solution([[number(value)]], steps)

    def statement(self, spec, m):
        v, t = value_sql(), from_sql()
        rows = [identifier(a) for a in m.row_attrs]
        on = " AND ".join(f"c.{r} IS NOT DISTINCT FROM best.{r}" for r in rows)
        sql = (f"SELECT c.{v} FROM (SELECT * FROM {t}{where_sql(spec['second'])}) AS c JOIN (SELECT {', '.join(rows)} "
               f"FROM {t}{where_sql(spec['filters'])} GROUP BY {', '.join(rows)} ORDER BY {_SQL_AGG[spec['function']]}"
               f"({v}) DESC LIMIT 1) AS best ON {on}")
        n = len(filtered_rows(m.rows, {"filters": spec["filters"]})) + 1
        return sql, facts_for(spec["filters"], spec["second"], [spec["function"]]), n

    def _check(self, spec, table):
        t = table.columns
        rows = t.row_attributes
        mask = t.mask(spec["filters"])
        totals = group_totals(spec["function"], path_keys(t, mask, rows), t.value[mask])
        best = max(totals, key=totals.get)
        target = t.mask(spec["second"])
        hit = t.value[target][path_keys(t, target, rows) == best]
        return [by_label((key_path(k), format_number(v)) for k, v in totals.items()), key_path(best),
                format_number(float(hit[0]))]

    def cross_check(self, spec, table):
        return self._check(spec, table)[-1]

    def cross_check_steps(self, spec, table):
        return self._check(spec, table)


# ------------------------------------------------------------------ fact checking


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


class MultiStepFactCheck(MultiStepFamily):
    """Two or three statements "this cell is higher than that one" joined by "and": true or false."""

    family_id = "ms_fact_check"
    answer_type = "boolean"
    treb_subtask = "multi_step_fact_checking"
    nl = NLRequirements(51, (("NESTED",),), frozenset({"NESTED"}))

    def applicable(self, m):
        return len(m.rows.rows) >= 4

    def draw(self, m, rng, variety):
        n_facts = rng.choice((2, 3))
        want = rng.random() < 0.5
        false_facts = set() if want else set(rng.sample(range(n_facts), rng.randint(1, n_facts)))
        facts, used = [], set()
        for i in range(n_facts):
            rp, cp = rng.choice(m.row_paths), rng.choice(m.col_paths)
            if len(m.col_paths) >= 2 and (len(m.row_paths) < 2 or rng.random() < 0.5):
                rp2, cp2 = rp, rng.choice([c for c in m.col_paths if c != cp])
            elif len(m.row_paths) >= 2:
                rp2, cp2 = rng.choice([r for r in m.row_paths if r != rp]), cp
            else:
                return None
            a, b = m.cells.get((rp, cp)), m.cells.get((rp2, cp2))
            if a is None or b is None or a == b or frozenset({(rp, cp), (rp2, cp2)}) in used:
                return None
            used.add(frozenset({(rp, cp), (rp2, cp2)}))
            first, second = ((rp, cp), (rp2, cp2)) if (a > b) != (i in false_facts) else ((rp2, cp2), (rp, cp))
            facts.append({"first": m.filters_for("row", [first[0]]) + m.filters_for("col", [first[1]]),
                          "second": m.filters_for("row", [second[0]]) + m.filters_for("col", [second[1]])})
        return {"computation": "ms_fact_check", "facts": facts}, {}

    def solution(self, spec, m, extra):
        steps, verdicts = [], []
        for i, fact in enumerate(spec["facts"], 1):
            a = filtered_rows(m.rows, {"filters": fact["first"]})
            b = filtered_rows(m.rows, {"filters": fact["second"]})
            if len(a) != 1 or len(b) != 1:
                return None
            x, y = values_of(m.rows, a)[0], values_of(m.rows, b)[0]
            verdicts.append(x > y)
            steps += [Step(f"statement {i}: the first value", number(x)),
                      Step(f"statement {i}: the second value", number(y)),
                      Step(f"statement {i}: the first is higher", "true" if x > y else "false")]
        answer = "true" if all(verdicts) else "false"
        return Solution([[answer]], steps + [Step("every statement holds", answer)])

    def question_text(self, template, nl, spec, facts):
        from ..rendering import render_question

        parts = [_lower_first(render_question(template, facts_for(f["first"], f["second"]), nl))
                 for f in spec["facts"]]
        return f"True or false: {', and '.join(parts)}. Answer true or false."

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        v, t = value_sql(), from_sql()
        conds = " AND ".join(f"(SELECT {v} FROM {t}{where_sql(f['first'])}) > (SELECT {v} FROM {t}"
                             f"{where_sql(f['second'])})" for f in spec["facts"])
        facts = facts_for(spec["facts"][0]["first"], spec["facts"][0]["second"])
        for f in spec["facts"][1:]:  # every part's literals, as the question prints them
            facts.outer.literals.extend(facts_for(f["first"], f["second"]).outer.literals)
        return f"SELECT CASE WHEN {conds} THEN 'true' ELSE 'false' END", facts, 2 * len(spec["facts"])

    def cross_check_steps(self, spec, table):
        t = table.columns
        out, verdicts = [], []
        for fact in spec["facts"]:
            x, y = t.single(fact["first"]), t.single(fact["second"])
            verdicts.append(bool(x > y))
            out += [format_number(x), format_number(y), "true" if x > y else "false"]
        return out + ["true" if all(verdicts) else "false"]

    def cross_check(self, spec, table):
        return self.cross_check_steps(spec, table)[-1]


# ------------------------------------------------------------------ operations


class MultiStepOperations(MultiStepFamily):
    """The maximum of one row's (or column's) values minus the mean of another's."""

    family_id = "ms_operations"
    treb_subtask = "multi_step_operations"
    nl = NLRequirements(52, (("NESTED",),), frozenset({"NESTED"}))

    def applicable(self, m):
        return (len(m.row_paths) >= 2 and len(m.col_paths) >= 2)

    def draw(self, m, rng, variety):
        axis = "row" if rng.random() < 0.5 else "col"
        a, b = rng.sample(m.row_paths if axis == "row" else m.col_paths, 2)
        return {"computation": "ms_operations", "first": m.filters_for(axis, [a]),
                "second": m.filters_for(axis, [b])}, {}

    def solution(self, spec, m, extra):
        sa = filtered_rows(m.rows, {"filters": spec["first"]})
        sb = filtered_rows(m.rows, {"filters": spec["second"]})
        if len(sa) < 2 or len(sb) < 2 or spans_parts("avg", sb, m):
            return None
        high, avg = max(values_of(m.rows, sa)), mean(values_of(m.rows, sb))
        answer = answer_text(high - avg)
        if answer is None:
            return None
        return Solution(answer, [Step("the maximum of the first values", number(high)),
                                 Step("the mean of the second values", number(avg)),
                                 Step("the maximum minus the mean", answer[0][0])])

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": ["max", "avg"]}

    def statement(self, spec, m):
        v, t = value_sql(), from_sql()
        sql = (f"SELECT (SELECT MAX({v}) FROM {t}{where_sql(spec['first'])}) - "
               f"(SELECT AVG({v}) FROM {t}{where_sql(spec['second'])})")
        n = len(filtered_rows(m.rows, {"filters": spec["first"]})) + len(filtered_rows(m.rows, {"filters": spec["second"]}))
        return sql, facts_for(spec["first"], spec["second"]), n

    def cross_check_steps(self, spec, table):
        t = table.columns
        high, avg = float(np.max(t.values(spec["first"]))), float(np.mean(t.values(spec["second"])))
        return [format_number(high), format_number(avg), format_number(high - avg)]

    def cross_check(self, spec, table):
        return self.cross_check_steps(spec, table)[-1]


# ------------------------------------------------------------------ derived series and groups


def key_attributes(m, at_least: int) -> list[str]:
    return [a for a in m.row_attrs + m.col_attrs if a in m.complete and len(m.order[a]) >= at_least]


def _draw_groups(m, rng, key_min: int):
    """A key attribute (at least `key_min` labels), another complete attribute and two of its labels."""
    keys = key_attributes(m, key_min)
    if not keys:
        return None
    key = rng.choice(keys)
    groups = [a for a in key_attributes(m, 2) if a != key]
    if not groups:
        return None
    g = rng.choice(groups)
    a, b = rng.sample(list(m.order[g]), 2)
    return key, g, a, b


def derived_series(m, fn: str, filters, key: str) -> Optional[dict[str, Fraction]]:
    """The `fn` total of the selected values per label of `key` (None when one spans parts that do not add up)."""
    out = {}
    for k, rows in keyed(m, filters, key).items():
        if spans_parts(fn, rows, m, (key,)):
            return None
        out[k] = aggregate(fn, values_of(m.rows, rows))
    return out


def series_facts(spec) -> QueryFacts:
    outer = scope_of(spec["first"])
    outer.sub = scope_of(spec["second"])
    outer.literals.extend(outer.sub.literals)
    return QueryFacts(outer, [], False, [spec["function"]], [spec["key"]], None, None)


def check_series(table, fn: str, filters, key: str) -> dict:
    """The cross-check's derived series: the `fn` total of the selected values per label of `key`."""
    t = table.columns
    mask = t.mask(filters)
    return group_totals(fn, t.attrs[key][mask], t.value[mask])


class MultiStepCorrelation(MultiStepFamily):
    """Pearson's r between two derived series: two groups' totals per label of a key attribute."""

    family_id = "ms_correlation"
    treb_subtask = "multi_step_correlation_analysis"
    nl = NLRequirements(53, (("NESTED",), ("EXPR",), ("GROUPBY",)), frozenset({"NESTED", "EXPR", "GROUPBY"}))

    def applicable(self, m):
        return bool(key_attributes(m, 3)) and len(key_attributes(m, 2)) >= 2

    def draw(self, m, rng, variety):
        drawn = _draw_groups(m, rng, 3)
        if drawn is None:
            return None
        key, g, a, b = drawn
        return {"computation": "ms_correlation", "function": total_function(m), "key": key,
                "first": [{"attribute": g, "values": [a]}], "second": [{"attribute": g, "values": [b]}]}, {}

    def solution(self, spec, m, extra):
        fn, key = spec["function"], spec["key"]
        sa, sb = derived_series(m, fn, spec["first"], key), derived_series(m, fn, spec["second"], key)
        if sa is None or sb is None or set(sa) != set(sb) or len(sa) < 3:
            return None
        ks = list(sa)
        xs, ys = [sa[k] for k in ks], [sb[k] for k in ks]
        mx, my = mean(xs), mean(ys)
        sxy = sum(((x - mx) * (y - my) for x, y in zip(xs, ys)), Fraction(0))
        sxx = sum(((x - mx) ** 2 for x in xs), Fraction(0))
        syy = sum(((y - my) ** 2 for y in ys), Fraction(0))
        if sxx == 0 or syy == 0:
            return None
        answer = answer_text(float(sxy) / math.sqrt(sxx * syy))
        if answer is None:
            return None
        word = _WORD[fn]
        return Solution(answer, [Step(f"the first group's {word} per {key}", by_label((k, number(sa[k])) for k in ks)),
                                 Step(f"the second group's {word} per {key}", by_label((k, number(sb[k])) for k in ks)),
                                 Step("Pearson's r of the two series", answer[0][0])])

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [spec["function"]], "grouping": "local"}

    def statement(self, spec, m):
        v, t, fn = value_sql(), from_sql(), _SQL_AGG[spec["function"]]
        k = identifier(spec["key"])
        side = lambda filters: f"(SELECT {k}, {fn}({v}) AS s FROM {t}{where_sql(filters)} GROUP BY {k})"  # noqa: E731
        sql = f"SELECT CORR(a.s, b.s) FROM {side(spec['first'])} AS a JOIN {side(spec['second'])} AS b ON a.{k} = b.{k}"
        n = len(filtered_rows(m.rows, {"filters": spec["first"]})) + len(filtered_rows(m.rows, {"filters": spec["second"]}))
        return sql, series_facts(spec), n

    def cross_check_steps(self, spec, table):
        fn, key = spec["function"], spec["key"]
        sa, sb = (check_series(table, fn, spec[s], key) for s in ("first", "second"))
        ks = sorted(sa)
        r = float(np.corrcoef([sa[k] for k in ks], [sb[k] for k in ks])[0, 1])
        return [by_label((k, format_number(sa[k])) for k in ks), by_label((k, format_number(sb[k])) for k in ks),
                format_number(r)]

    def cross_check(self, spec, table):
        return self.cross_check_steps(spec, table)[-1]


class MultiStepHypothesis(MultiStepFamily):
    """A test between derived groups: one group's totals per key label split at their median; whether another
    group's values are higher in the labels above the median (Welch's t-test, one-sided, alpha 0.05)."""

    family_id = "ms_hypothesis"
    kind = "statistical"
    answer_type = "boolean"
    treb_subtask = "multi_step_hypothesis_testing"
    nl = NLRequirements(54, (("NESTED",), ("EXPR",), ("GROUPBY",)), frozenset({"NESTED", "EXPR", "GROUPBY"}))

    def applicable(self, m):
        return bool(key_attributes(m, 4)) and len(key_attributes(m, 2)) >= 2

    def draw(self, m, rng, variety):
        want = rng.random() < 0.5
        first_seen = None
        for _ in range(8):
            drawn = _draw_groups(m, rng, 4)
            if drawn is None:
                return None
            key, g, a, b = drawn
            spec = {"computation": "ms_hypothesis", "function": total_function(m), "key": key,
                    "first": [{"attribute": g, "values": [a]}], "second": [{"attribute": g, "values": [b]}]}
            said = self._float_verdict(spec, m)  # floats pick the draw; `solve` decides it exactly
            if said is None:
                continue
            if said == want:
                return spec, {}
            first_seen = first_seen or spec
        return (first_seen, {}) if first_seen else None

    @staticmethod
    def _float_verdict(spec, m) -> Optional[bool]:
        """The test's outcome in floats (None where it cannot be asked), to scan draws cheaply."""
        vi, key = m.rows.index["Value"], spec["key"]
        first, second = keyed(m, spec["first"], key), keyed(m, spec["second"], key)
        totals = {k: (sum if spec["function"] == "sum" else np.mean)([r[vi] for r in rows]) for k, rows in first.items()}
        if len(totals) < 4:
            return None
        median = float(np.median(list(totals.values())))
        above = [r[vi] for k, v in totals.items() if v > median for r in second.get(k, [])]
        below = [r[vi] for k, v in totals.items() if v < median for r in second.get(k, [])]
        if len(above) < MIN_SAMPLE or len(below) < MIN_SAMPLE:
            return None
        return significant(welch_p_greater_float(above, below))

    def solution(self, spec, m, extra):
        fn, key = spec["function"], spec["key"]
        totals = derived_series(m, fn, spec["first"], key)
        if totals is None or len(totals) < 4:
            return None
        ordered = sorted(totals.values())
        n = len(ordered)
        median = ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2
        if any(close(x, y) for x, y in zip(ordered, ordered[1:])) or \
                any(close(x, median) and x != median for x in ordered):
            return None
        high = [k for k, v in totals.items() if v > median]
        low = [k for k, v in totals.items() if v < median]
        tested = keyed(m, spec["second"], key)
        above = [x for k in high for x in values_of(m.rows, tested.get(k, []))]
        below = [x for k in low for x in values_of(m.rows, tested.get(k, []))]
        if len(above) < MIN_SAMPLE or len(below) < MIN_SAMPLE:
            return None
        p = welch_p_greater(above, below)
        said, printed = significant(p), significant_digits(p, 3)
        if said is None or printed is None:
            return None
        answer = YES if said else NO
        word = _WORD[fn]
        return Solution([[answer]], [
            Step(f"the first group's {word} per {key}", by_label((k, number(v)) for k, v in totals.items())),
            Step(f"the median of those {word}s", number(median)),
            Step(f"the {key} labels above the median", sorted(high)),
            Step(f"the {key} labels below the median", sorted(low)),
            Step("the mean of the second group's values above the median", number(mean(above))),
            Step("the mean of the second group's values below the median", number(mean(below))),
            Step("Welch's one-sided p value", printed),
            Step("significant at 0.05", answer)])

    def finish_question(self, text, spec):
        return f"{text} {WELCH_TEXT}"

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [spec["function"], "avg"], "grouping": "local"}

    def statement(self, spec, m):
        n = len(filtered_rows(m.rows, {"filters": spec["first"]})) + len(filtered_rows(m.rows, {"filters": spec["second"]}))
        return None, series_facts(spec), n

    def cross_check_steps(self, spec, table):
        from scipy.stats import ttest_ind

        fn, key = spec["function"], spec["key"]
        totals = check_series(table, fn, spec["first"], key)
        median = float(np.median(list(totals.values())))
        high = sorted(k for k, v in totals.items() if v > median)
        low = sorted(k for k, v in totals.items() if v < median)
        t = table.columns
        tested = t.mask(spec["second"])
        above = t.value[tested & np.isin(t.attrs[key], high)]
        below = t.value[tested & np.isin(t.attrs[key], low)]
        p = float(ttest_ind(above, below, equal_var=False, alternative="greater").pvalue)
        answer = YES if p < 0.05 else NO
        return [by_label((k, format_number(v)) for k, v in totals.items()), format_number(median), high, low,
                format_number(above.mean()), format_number(below.mean()), significant_digits(p, 3), answer]

    def cross_check(self, spec, table):
        return self.cross_check_steps(spec, table)[-1]


class MultiStepConditional(MultiStepFamily):
    """The total (average) of the values above the mean of their own group, over a derived table."""

    family_id = "ms_conditional"
    treb_subtask = "multi_step_conditional_calculation"
    nl = NLRequirements(55, (("EXPR",), ("GROUPBY",)), frozenset({"EXPR", "GROUPBY"}))

    def applicable(self, m):
        return bool(key_attributes(m, 2))

    def draw(self, m, rng, variety):
        group = rng.choice(key_attributes(m, 2))
        others = [a for a in key_attributes(m, 2) if a != group]
        filters = []
        if others and rng.random() < 0.5:
            a = rng.choice(others)
            filters = [{"attribute": a, "values": [rng.choice(list(m.order[a]))]}]
        return {"computation": "ms_conditional", "function": total_function(m), "group": group,
                "filters": filters}, {}

    def solution(self, spec, m, extra):
        fn, group = spec["function"], spec["group"]
        groups = keyed(m, spec["filters"], group)
        if len(groups) < 2 or any(len(rows) < 2 for rows in groups.values()):
            return None
        means, kept = {}, []
        for k, rows in groups.items():
            xs = values_of(m.rows, rows)
            means[k] = mean(xs)
            if any(close(x, means[k]) for x in xs):
                return None
            kept += [r for r, x in zip(rows, xs) if x > means[k]]
        if not kept or spans_parts(fn, kept, m):
            return None
        answer = answer_text(aggregate(fn, values_of(m.rows, kept)))
        if answer is None:
            return None
        return Solution(answer, [
            Step(f"the mean of each {group}'s values", by_label((k, number(v)) for k, v in means.items())),
            Step("the values above their own group's mean",
                 by_label((labels_of(m, r), number(x)) for r, x in zip(kept, values_of(m.rows, kept)))),
            Step(f"the {_WORD[fn]} of those values", answer[0][0])])

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": ["avg", spec["function"]], "grouping": "local"}

    def statement(self, spec, m):
        v, t = value_sql(), from_sql()
        g = identifier(spec["group"])
        sql = (f"SELECT {_SQL_AGG[spec['function']]}(x) FROM (SELECT {v} AS x, AVG({v}) OVER (PARTITION BY {g}) AS "
               f"group_mean FROM {t}{where_sql(spec['filters'])}) AS d WHERE x > group_mean")
        outer = scope_of(spec["filters"])
        facts = QueryFacts(outer, [], False, [spec["function"]], [spec["group"]], None, None)
        return sql, facts, len(filtered_rows(m.rows, {"filters": spec["filters"]}))

    def cross_check_steps(self, spec, table):
        t = table.columns
        mask = t.mask(spec["filters"])
        groups, values = t.attrs[spec["group"]][mask].astype(str), t.value[mask]
        means = group_totals("avg", groups, values)
        kept = values > np.array([means[g] for g in groups])
        paths = [[str(x) for x in row if x is not None]
                 for row in zip(*(t.attrs[a][mask][kept] for a in t.row_attributes + t.col_attributes))]
        total = float(values[kept].sum() if spec["function"] == "sum" else values[kept].mean())
        return [by_label((k, format_number(v)) for k, v in means.items()),
                by_label(zip(paths, map(format_number, values[kept].tolist()))), format_number(total)]

    def cross_check(self, spec, table):
        return self.cross_check_steps(spec, table)[-1]


FAMILIES = (MultiStepRetrieval(), MultiStepFactCheck(), MultiStepOperations(), MultiStepCorrelation(),
            MultiStepHypothesis(), MultiStepConditional())
