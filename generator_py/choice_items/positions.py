"""su_tis: a question whose row (or column) conditions are replaced by the positions holding the answer.

TabIS Appendix B: of the rows and the columns of the answer's cells, the smaller set is named by
position (1-based rows and columns of the CSV rendering, header rows included); the conditions on
the other axis stay as they are, so the question asks for the same cells and has the same answer.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from .choice_table import ChoiceTable
from .strategies import Question

FUNCTION_NAMES = {"min": "minimum", "max": "maximum", "sum": "total", "avg": "average"}
# templates whose answer is read off or computed from the data cells their filters select
POSITION_TEMPLATES = frozenset(range(1, 12))


@dataclass(frozen=True)
class PositionQuestion:
    question: str
    axis: str  # 'row' or 'column': the conditions replaced by positions
    positions: tuple


def _join(items: Sequence[str], word: str) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1]


def _display(attribute: str) -> str:
    return attribute.replace("_", " ")


def _conditions(filters: list[dict]) -> str:
    parts = [f"{_display(f['attribute'])} is {_join(list(f['values']), 'or')}" for f in filters]
    return " and ".join(parts)


def answer_cells(q: Question, t: ChoiceTable) -> list:
    """The data cells a question's filters select (what it reads or aggregates)."""
    return q.selected_cells(t)


def position_question(q: Question, t: ChoiceTable) -> Optional[PositionQuestion]:
    spec = q.spec
    if q.template_id not in POSITION_TEMPLATES or spec.get("value_condition") or spec.get("semi_join") \
            or spec.get("limit") or any(o["kind"] == "value" for o in spec.get("order_by") or []):
        return None
    cells = answer_cells(q, t)
    if not cells:
        return None
    rows = sorted({c.row for c in cells})
    cols = sorted({c.col for c in cells})
    axis, positions = ("row", rows) if len(rows) <= len(cols) else ("column", cols)
    replaced = set(t.row_attributes if axis == "row" else t.col_attributes)
    kept = [f for f in spec["filters"] if f["attribute"] not in replaced]
    noun = axis if len(positions) == 1 else axis + "s"
    where = f"in {noun} {_join([str(p) for p in positions], 'and')}"
    if kept:
        where += f" where {_conditions(kept)}"
    aggregates = [FUNCTION_NAMES[s["function"]] for s in spec["select"] if s["kind"] == "aggregate"]
    if aggregates:
        verb = "is" if len(aggregates) == 1 else "are"
        text = f"What {verb} the {_join(aggregates, 'and')} of the data values {where}"
    elif len(cells) == 1:
        text = f"What is the data value {where}"
    else:
        text = f"What are the data values {where}"
    group_by = spec.get("group_by") or []
    if group_by:
        text += f", for each {_join([_display(a).lower() for a in group_by], 'and')}"
    text += "?"
    named = [s["name"] for s in spec["select"] if s["kind"] == "attribute"]
    if named:
        text += f" Also give the {_join([_display(a).lower() for a in named], 'and')}."
    return PositionQuestion(text, axis, tuple(positions))
