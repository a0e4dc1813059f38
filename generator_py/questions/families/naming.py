"""TReB's naming skills on an HCT: name the table (its caption, hidden from the question's rendering) and
name a header (one header cell shown empty in the question's rendering). Their answers are text, scored by
the text metrics (ROUGE-L, BLEU, the judge); `answer_type` is "text".

The hidden part travels with the question (`hides_caption`, `blank_grid_row` / `blank_grid_col`), and the
question's renderings are made from the table's grid with that change (generator_py.render.question_grid),
for every text format.
"""
from __future__ import annotations

from typing import Optional

from ...core.formatting import format_cell_number
from ..template_syntax import NLRequirements
from .computed import NO_CHANGE, ComputedFamily, facts_for

# header roles whose text is a label a reader could name (attribute names and corners are not asked)
NAMEABLE_ROLES = ("column_header", "row_header", "row_group_label")


class TitleNaming(ComputedFamily):
    """Answer: the table's caption (its value name), which the question's renderings leave out."""

    family_id = "title_name"
    treb_skill, treb_subtask = "TU", "title_naming"
    treb_metric = "rouge_l"
    kind = "naming"
    answer_type = "text"
    nl = NLRequirements(21)

    def applicable(self, m):
        return bool(m.table.value_name)

    def draw(self, m, rng, variety):
        return {"computation": "title"}, {}

    def exhausted(self, m):
        return True

    def compute(self, spec, m, extra):
        return [[m.table.value_name]]

    def statement(self, spec, m):
        return None, facts_for([]), 0

    def rendering_change(self, spec, extra):
        return {**NO_CHANGE, "hides_caption": True}

    def cross_check(self, spec, table):
        return table.caption or ""


def nameable_headers(m) -> list[tuple[int, int, str]]:
    """(grid_row, grid_col, text) of header cells whose text no other cell of the table shows (no other header
    cell, no data or aggregate cell as the table prints its numbers)."""
    cached = getattr(m, "_nameable_headers", None)
    if cached is not None:
        return cached
    cells = getattr(m.table, "header_cells", ()) or ()
    counts: dict[str, int] = {}
    for _, _, _, text in cells:
        counts[text] = counts.get(text, 0) + 1
    t = m.table
    numbers = {format_cell_number(v, t.value_is_integer) for v in m.cells.values()}
    numbers |= {format_cell_number(a.value, t.value_is_integer) for a in t.shown_aggregates}
    out = [(r, c, text) for r, c, role, text in cells
           if role in NAMEABLE_ROLES and text.strip() and counts[text] == 1 and text not in numbers]
    m._nameable_headers = out  # asked by applicable, draw and compute: computed once per table
    return out


class HeaderNaming(ComputedFamily):
    """Answer: the label of one header cell (shown once in the table), emptied in the question's renderings."""

    family_id = "header_name"
    treb_skill, treb_subtask = "TU", "column_naming"
    treb_metric = "rouge_l"
    kind = "naming"
    answer_type = "text"
    reads_header_cells = True
    nl = NLRequirements(22)

    def applicable(self, m):
        return bool(nameable_headers(m))

    def draw(self, m, rng, variety):
        r, c, _ = rng.choice(nameable_headers(m))
        return {"computation": "header", "grid_row": r, "grid_col": c}, {}

    def exhausted(self, m):
        return True

    def compute(self, spec, m, extra) -> Optional[list[list[str]]]:
        for r, c, text in nameable_headers(m):
            if (r, c) == (spec["grid_row"], spec["grid_col"]):
                return [[text]]
        return None

    def statement(self, spec, m):
        return None, facts_for([]), 0

    def rendering_change(self, spec, extra):
        return {**NO_CHANGE, "blank_cell": (spec["grid_row"], spec["grid_col"])}

    def cross_check(self, spec, table):
        return table.header_text.get((spec["grid_row"], spec["grid_col"]), "")


FAMILIES = (TitleNaming(), HeaderNaming())
