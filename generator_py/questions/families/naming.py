"""TReB's naming skills on an HCT: name the table (its caption, hidden from the question's rendering), name a
header (one header cell shown empty in the question's rendering), and name a column from its values (the
question's rendering shows the row headers and that one column, its own header empty: TReB's column naming,
inferring a column's name from its data, with the labels it may have listed in the question). Their answers
are text, scored by the text metrics (ROUGE-L, BLEU, the judge); `answer_type` is "text".

The hidden part travels with the question (`hides_caption`, `blank_grid_row` / `blank_grid_col`, or a grid
change `column_view`), and the question's renderings are made from the table's grid with that change
(generator_py.render.question_grid), for every text format.
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


class ColumnValuesNaming(ComputedFamily):
    """Answer: the innermost header label of one data column, whose values the question's rendering shows alone
    with the row headers (its own header empty); the question lists the labels of its sibling columns."""

    family_id = "column_values_name"
    treb_skill, treb_subtask = "TU", "column_naming"
    treb_metric = "rouge_l"
    kind = "naming"
    answer_type = "text"
    nl = NLRequirements(35)

    def options(self, m) -> list[tuple[tuple, list[str]]]:
        """(column path, the innermost labels of it and its siblings, in table order) of each column that has
        a sibling under its parent and whose label no row header shows."""
        cached = getattr(m, "_column_name_options", None)
        if cached is None:
            row_labels = {x for a in m.row_attrs for x in m.order[a]}
            by_parent: dict[tuple, list[tuple]] = {}
            for cp in m.col_paths:
                labels = tuple(x for x in cp if x is not None)
                if labels:
                    by_parent.setdefault(labels[:-1], []).append(labels)
            cached = [(p, [q[-1] for q in same]) for same in by_parent.values() if len(same) >= 2
                      for p in same if p[-1] not in row_labels]
            m._column_name_options = cached
        return cached

    def applicable(self, m):
        return bool(self.options(m))

    def draw(self, m, rng, variety):
        path, labels = rng.choice(self.options(m))
        return {"computation": "column_header", "col_path": list(path), "candidates": labels}, {}

    def exhausted(self, m):
        return True

    def compute(self, spec, m, extra):
        return [[spec["col_path"][-1]]]

    def finish_question(self, text, spec):
        c = spec["candidates"]
        return f"{text} It is one of: {', '.join(c[:-1])} or {c[-1]}."

    def statement(self, spec, m):
        return None, facts_for([]), len(m.row_paths)

    def rendering_change(self, spec, extra):
        return {"hides_caption": False, "blank_cell": None,
                "grid_change": {"kind": "column_view", "col_path": spec["col_path"]}}

    def cross_check(self, spec, table):
        t = table.columns
        path = [x for x in spec["col_path"]]
        # the column's cells: those whose column labels (NULLs left out) are its path
        labels = [[x for x in (t.attrs[a][i] for a in t.col_attributes) if x is not None] for i in range(len(t.value))]
        cells = [ls for ls in labels if ls == path]
        return str(cells[0][-1]) if cells else "no such column"


FAMILIES = (TitleNaming(), HeaderNaming(), ColumnValuesNaming())
