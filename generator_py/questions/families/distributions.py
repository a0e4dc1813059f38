"""TReB's distribution testing on an HCT: the test the question names, over the values of one selection (a
column, a row, or every cell of one label of an attribute: computed.value_groups).

`shapiro_normality`: "are these values normally distributed?" by the Shapiro-Wilk test at alpha 0.05 (yes: the
test does not reject normality), on at least 8 values; the draw picks the answer (yes with probability one half)
and takes the first selection, in a random order, whose test gives it, else the first it tried. p by
scipy.stats.shapiro (families/statistics.py), answers within P_MARGIN of the level not asked.

`percentile_rank`: for one value V of the selection (at least 5 values), either the percentage of the values at
or below V (`percentile` form: 100 * count / n, two decimals) or its quartile (`quartile` form: k when that
percentage is above 25 (k - 1) and at most 25 k, so 1 to 4); both definitions are stated in the question.
The cross-checks: scipy.stats.shapiro and scipy.stats.percentileofscore (kind "weak") on the relational rows.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ...core.formatting import format_cell_number, format_number
from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, answer_text, facts_for, from_sql, value_groups, value_sql, values_of, where_sql
from .statistics import shapiro_p, significant

MIN_SHAPIRO = 8
MIN_RANKED = 5
MAX_CANDIDATES = 12  # selections tried per draw for the drawn answer
RANK_FORMS = ("percentile", "quartile")

SHAPIRO_TEXT = ("Use the Shapiro-Wilk test at significance level 0.05: answer yes if it does not reject normality, "
                "no if it does.")


class ShapiroNormality(ComputedFamily):
    """Whether a selection's values pass the Shapiro-Wilk normality test (alpha 0.05): yes / no."""

    family_id = "shapiro_normality"
    kind = "statistical"
    answer_type = "boolean"
    treb_skill, treb_subtask = "DA", "distribution_testing"
    nl = NLRequirements(48)

    def applicable(self, m):
        return any(n >= MIN_SHAPIRO for _, n in value_groups(m))

    def draw(self, m, rng, variety):
        want = rng.random() < 0.5  # normality not rejected
        options = [f for f, n in value_groups(m) if n >= MIN_SHAPIRO]
        rng.shuffle(options)
        first_seen = None
        for filters in options[:MAX_CANDIDATES]:
            rejected = significant(shapiro_p(values_of(m.rows, filtered_rows(m.rows, {"filters": filters}))))
            if rejected is None:
                continue
            spec = {"computation": "shapiro_wilk", "filters": filters}
            if (not rejected) == want:
                return spec, {}
            first_seen = first_seen or spec
        return (first_seen, {}) if first_seen else None

    def exhausted(self, m):
        return False

    def compute(self, spec, m, extra):
        rejected = significant(shapiro_p(values_of(m.rows, filtered_rows(m.rows, spec))))
        return None if rejected is None else [["no" if rejected else "yes"]]

    def finish_question(self, text, spec):
        return f"{text} {SHAPIRO_TEXT}"

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        return None, facts_for(spec["filters"]), len(filtered_rows(m.rows, spec))

    def cross_check(self, spec, table):
        from scipy.stats import shapiro

        return "no" if float(shapiro(table.columns.values(spec["filters"])).pvalue) < 0.05 else "yes"


def rank_text(form: str, shown: str) -> str:
    if form == "percentile":
        return f"What percentage of them are less than or equal to {shown}? Give the percentage (100 times their count " \
               "divided by the number of values)."
    return (f"In which quartile of them does {shown} lie? Quartile k (1 to 4) holds the values for which the "
            "percentage of values less than or equal to them is above 25 (k - 1) and at most 25 k; answer with k.")


class PercentileRank(ComputedFamily):
    """The percentage of a selection's values at or below one of them, or the quartile that puts it in."""

    family_id = "percentile_rank"
    treb_skill, treb_subtask = "DA", "distribution_testing"
    nl = NLRequirements(49)

    def applicable(self, m):
        return any(n >= MIN_RANKED for _, n in value_groups(m))

    def draw(self, m, rng, variety):
        options = [f for f, n in value_groups(m) if n >= MIN_RANKED]
        filters = rng.choice(options)
        xs = values_of(m.rows, filtered_rows(m.rows, {"filters": filters}))
        value = float(rng.choice(xs))
        return {"computation": "percentile_rank", "form": rng.choice(RANK_FORMS), "filters": filters,
                "value": value, "shown": format_cell_number(value, m.table.value_is_integer)}, {}

    def compute(self, spec, m, extra):
        xs = values_of(m.rows, filtered_rows(m.rows, spec))
        v = Fraction(spec["value"])
        if len(xs) < MIN_RANKED or v not in xs:
            return None
        share = Fraction(100 * sum(1 for x in xs if x <= v), len(xs))
        if spec["form"] == "quartile":
            return [[str(math.ceil(share / 25))]]
        return answer_text(share)

    def finish_question(self, text, spec):
        return f"{text} {rank_text(spec['form'], spec['shown'])}"

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        v, t, where = value_sql(), from_sql(), where_sql(spec["filters"])
        share = f"100.0 * COUNT(*) FILTER (WHERE {v} <= {format_number(spec['value'])}) / COUNT(*)"
        sql = f"SELECT {share} FROM {t}{where}" if spec["form"] == "percentile" else \
            f"SELECT CAST(CEIL({share} / 25) AS INTEGER) FROM {t}{where}"
        return sql, facts_for(spec["filters"]), len(filtered_rows(m.rows, spec))

    def cross_check(self, spec, table):
        from scipy.stats import percentileofscore

        share = float(percentileofscore(table.columns.values(spec["filters"]), spec["value"], kind="weak"))
        return format_number(share) if spec["form"] == "percentile" else str(math.ceil(round(share / 25, 9)))


FAMILIES = (ShapiroNormality(), PercentileRank())
