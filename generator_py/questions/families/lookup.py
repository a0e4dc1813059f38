"""Value lookups, Table III SQL1-3 and SQL6: the cells of chosen row and column header paths."""
from __future__ import annotations

from ..template_syntax import NLRequirements
from .draws import VALUE_SEL, new_spec, paths
from .registry import QuestionFamily


class ValueLookup(QuestionFamily):
    """Value of one or several row paths (`rows`: "one" | "many") at one or several column paths."""

    treb_skill, treb_subtask = "TU", "table_retrieval"

    def __init__(self, template_id: int, rows: str, cols: str):
        self.template_id = template_id
        self.family_id = f"q{template_id:02d}"
        self.nl = NLRequirements(template_id)
        self.rows, self.cols = rows, cols

    def draw(self, m, rng, variety):
        row_f = m.filters_for("row", paths(m, "row", self.rows, rng))
        return new_spec(row_f + m.filters_for("col", paths(m, "col", self.cols, rng)), VALUE_SEL), {}

    def valid(self, spec, answer, sel, m, extra):
        if self.rows == "one" and self.cols == "one":
            return len(answer) == 1  # one cell
        # several paths ask for several cells, unless the table has a single row or column path
        return len(answer) >= 2 or not (len(m.row_paths) > 1 and len(m.col_paths) > 1)


FAMILIES = (ValueLookup(1, "one", "one"), ValueLookup(2, "many", "one"), ValueLookup(3, "one", "many"),
            ValueLookup(6, "many", "many"))
