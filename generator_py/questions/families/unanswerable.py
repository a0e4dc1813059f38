"""TReB's hallucination subtask on an HCT: a one-cell lookup whose condition names a year the table does not
show, so nothing in the table answers it. The answer is the refusal the prompts document (`no answer`);
scored by `refusal_correct` (a refusal here is right) beside `false_refusal` on the answerable questions.

The absent year is drawn next to the years shown (one to three before the first or after the last), so the
question reads like its answerable neighbours. The cross-check filters the built relational rows on the
question's conditions and finds no cell.
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


class AbsentYear(ComputedFamily):
    """A cell's lookup with its year replaced by one the table does not show: answer `no answer`."""

    family_id = "absent_year"
    treb_skill, treb_subtask = "NLU", "hallucination"
    treb_metric = "refusal_correct"
    answer_type = "refusal"
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

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none"}

    def statement(self, spec, m):
        # the lookup it asks, which selects no cell
        return f"SELECT {value_sql()} FROM {from_sql()}{where_sql(spec['filters'])}", facts_for(spec["filters"]), 0

    def cross_check(self, spec, table):
        return NO_ANSWER if len(table.columns.values(spec["filters"])) == 0 else "a cell answers it"


FAMILIES = (AbsentYear(),)
