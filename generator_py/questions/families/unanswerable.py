"""TReB's hallucination subtask on an HCT: a one-cell lookup whose condition names a value the table does not
show, so nothing in the table answers it. The answer is the refusal the prompts document (`no answer`);
scored by `refusal_correct` (a refusal here is right) beside `false_refusal` on the answerable questions.

Three families, by what is absent: `absent_year` a year next to those shown (one to three before the first or
after the last), so the question reads like its answerable neighbours; `absent_category` a label of the
domain's vocabulary for one of the table's attributes that the table does not show (a severity, a month, a
city of a country it shows); `absent_branch` a label of the deepest level of a hierarchy whose outermost
ancestor the table does not show (a city of another country, a food item of another category). The last two
read the vocabulary (generator_py.vocabulary.knowledge). The cross-check filters the built relational rows on
the question's conditions and finds no cell, and no row of the table shows the absent label.
"""
from __future__ import annotations

from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .computed import ComputedFamily, facts_for, from_sql, value_sql, where_sql

NO_ANSWER = "no answer"  # the reply prompts ask for when the table cannot answer (evaluation_py.prompting)


def year_attributes(m) -> list[str]:
    """Attributes on no NULL row whose labels are all years (four digits)."""
    return [a for a in m.row_attrs + m.col_attrs
            if a in m.complete and m.order[a] and all(len(x) == 4 and x.isdigit() for x in m.order[a])]


class _Unanswerable(ComputedFamily):
    """A one-cell lookup that selects no cell (its `filters`): answered by the refusal, stated by that lookup."""

    treb_skill, treb_subtask = "NLU", "hallucination"
    treb_metric = "refusal_correct"
    answer_type = "refusal"

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        # the lookup it asks, which selects no cell
        return f"SELECT {value_sql()} FROM {from_sql()}{where_sql(spec['filters'])}", facts_for(spec["filters"]), 0


class AbsentYear(_Unanswerable):
    """A cell's lookup with its year replaced by one the table does not show: answer `no answer`."""

    family_id = "absent_year"
    nl = NLRequirements(23)

    def applicable(self, m):
        return bool(year_attributes(m))

    def draw(self, m, rng, variety):
        attr = rng.choice(year_attributes(m))
        rp, cp = rng.choice(m.row_paths), rng.choice(m.col_paths)
        filters = [f for f in m.filters_for("row", [rp]) + m.filters_for("col", [cp]) if f["attribute"] != attr]
        shown = sorted(int(y) for y in m.order[attr])
        absent = rng.choice([shown[0] - k for k in (1, 2, 3)] + [shown[-1] + k for k in (1, 2, 3)])
        return {"computation": "absent", "absent_attribute": attr,
                "filters": filters + [{"attribute": attr, "values": [str(absent)]}]}, {}

    def compute(self, spec, m, extra):
        if filtered_rows(m.rows, spec):
            return None  # never: the year is not shown
        return [[NO_ANSWER]]

    def cross_check(self, spec, table):
        return NO_ANSWER if len(table.columns.values(spec["filters"])) == 0 else "a cell answers it"


def _without_code(m, rp, cp, code: str) -> list[dict]:
    """One cell's conditions without those on the attributes of hierarchy (or independent attribute) `code`."""
    return [f for f in m.filters_for("row", [rp]) + m.filters_for("col", [cp]) if m.attr_info[f["attribute"]].code != code]


class _AbsentLabel(_Unanswerable):
    """A cell's lookup with one condition naming a vocabulary label the table does not show."""

    def absent_options(self, m) -> list[tuple[str, list[str]]]:
        """(attribute, its vocabulary labels that may be named) per attribute of the table that has some."""
        raise NotImplementedError

    def applicable(self, m):
        return m.measure.knowledge is not None and bool(self.absent_options(m))

    def draw(self, m, rng, variety):
        attr, labels = rng.choice(self.absent_options(m))
        rp, cp = rng.choice(list(m.cells))
        label = rng.choice(labels)
        filters = _without_code(m, rp, cp, m.attr_info[attr].code) + [{"attribute": attr, "values": [label]}]
        return {"computation": "absent", "absent_attribute": attr, "filters": filters}, {}

    def exhausted(self, m):
        return not self.absent_options(m)

    def compute(self, spec, m, extra):
        attr = spec["absent_attribute"]
        label = next(f["values"][0] for f in spec["filters"] if f["attribute"] == attr)
        if filtered_rows(m.rows, spec) or label in m.order[attr]:
            return None  # never: the label is not shown
        return [[NO_ANSWER]]

    def cross_check(self, spec, table):
        t = table.columns
        attr = spec["absent_attribute"]
        label = next(f["values"][0] for f in spec["filters"] if f["attribute"] == attr)
        shown = label in set(t.attrs[attr].tolist())
        return NO_ANSWER if len(t.values(spec["filters"])) == 0 and not shown else "a cell answers it"


class AbsentCategory(_AbsentLabel):
    """A cell's lookup naming a label of one of the table's attributes that the table does not show (its parent,
    for a label inside a hierarchy, shown): answer `no answer`."""

    family_id = "absent_category"
    nl = NLRequirements(30)

    def absent_options(self, m):
        cached = getattr(m, "_absent_categories", None)
        if cached is None:
            years, k = set(year_attributes(m)), m.measure.knowledge
            cached = []
            for attr in m.row_attrs + m.col_attrs:
                if attr in years or attr not in k.ancestors:
                    continue
                shown_above = {x for a in m.row_attrs + m.col_attrs for x in m.order[a]}
                labels = [label for label, above in k.ancestors[attr].items()
                          if label not in m.order[attr] and (not above or above[-1] in shown_above)]
                if labels:
                    cached.append((attr, labels))
            m._absent_categories = cached
        return cached


class AbsentBranch(_AbsentLabel):
    """A cell's lookup naming a label of a hierarchy's deepest level in the table whose outermost ancestor the
    table does not show (a city of another country): answer `no answer`."""

    family_id = "absent_branch"
    nl = NLRequirements(31)

    def absent_options(self, m):
        cached = getattr(m, "_absent_branches", None)
        if cached is None:
            k = m.measure.knowledge
            by_code: dict[str, list[str]] = {}
            for attr in m.row_attrs + m.col_attrs:
                by_code.setdefault(m.attr_info[attr].code, []).append(attr)
            cached = []
            for attrs in by_code.values():
                if len(attrs) < 2:
                    continue
                top = min(attrs, key=lambda a: m.attr_info[a].level)
                deepest = max(attrs, key=lambda a: m.attr_info[a].level)
                if m.attr_info[top].level != 1 or deepest not in k.ancestors:
                    continue
                labels = [label for label, above in k.ancestors[deepest].items()
                          if above and above[0] not in m.order[top]]
                if labels:
                    cached.append((deepest, labels))
            m._absent_branches = cached
        return cached


FAMILIES = (AbsentYear(), AbsentCategory(), AbsentBranch())
