"""The five rules that make a wrong option from a question's answer, each with its provenance.

Each strategy is a pure function of (question, table, rng) returning a `Distractor` or None when it
does not apply; a distractor never states the same values as the answer (option_text.options_differ).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Callable, Optional

from ..core.formatting import format_value
from ..questions.spec import evaluate_filtered, evaluate_spec, filtered_rows
from .choice_table import ChoiceTable, ValueCell
from .option_text import answer_option, option_value_key, options_differ

STRATEGIES = ("neighbour_cell", "aggregate_for_data", "sibling_condition", "wrong_function", "numeric_perturbation")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
SWAPPED_FUNCTION = {"min": "max", "max": "min", "sum": "avg", "avg": "sum"}


@dataclass(frozen=True)
class Question:
    """What the strategies read of a question: its spec, its answer rows and its correct option."""

    question_id: str
    template_id: int
    spec: dict
    answer_rows: list  # the answer's rows of canonical value texts (benchmark_questions.answer_rows)
    correct: str  # benchmark_questions.answer_gt
    # what the strategies, su_tis and the spec check read of the question's table, worked out once
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    def selected(self, t: ChoiceTable) -> list:
        """The relational rows of the question's table its filters select (the WHERE clause)."""
        if "rows" not in self._memo:
            self._memo["rows"] = filtered_rows(t.rows, self.spec)
        return self._memo["rows"]

    def selected_cells(self, t: ChoiceTable) -> list:
        """The data cells that show the selected rows."""
        if "cells" not in self._memo:
            self._memo["cells"] = t.data_cells_of_rows(self.selected(t))
        return self._memo["cells"]

    @property
    def selects_values_only(self) -> bool:
        return [s["kind"] for s in self.spec["select"]] == ["value"]

    @property
    def reads_shown_aggregate(self) -> bool:
        return self.template_id == 5


@dataclass(frozen=True)
class Distractor:
    option: str
    strategy: str
    provenance: str


def _accept(q: Question, rows: list, strategy: str, provenance: str) -> Optional[Distractor]:
    if not rows or any(v is None for r in rows for v in r):
        return None
    option = answer_option(rows)
    return Distractor(option, strategy, provenance) if options_differ(option, q.correct) else None


def _answer_texts(q: Question) -> set[str]:
    return {option_value_key(v) for r in q.answer_rows for v in r if v is not None}


def _replace_value(q: Question, i: int, new: str, j: int = -1) -> list:
    rows = [list(r) for r in q.answer_rows]
    rows[i][j] = new
    return rows


def _shuffled(rng: random.Random, items) -> list:
    out = list(items)
    rng.shuffle(out)
    return out


def neighbour_cell(q: Question, t: ChoiceTable, rng: random.Random) -> Optional[Distractor]:
    """One answer value read off an adjacent data cell instead (TabIS error type R3)."""
    if not q.selects_values_only:
        return None
    def neighbours(cell: ValueCell):
        for dr, dc in _shuffled(rng, ((-1, 0), (1, 0), (0, -1), (0, 1))):
            n = t.cells.get((cell.row + dr, cell.col + dc))
            if n is not None and n.role == "data":
                yield n

    return _swap_answer_cell(q, t, rng, "neighbour_cell", neighbours,
                             lambda cell, n: f"row {cell.row} column {cell.col} -> row {n.row} column {n.col}")


def _swap_answer_cell(q: Question, t: ChoiceTable, rng: random.Random, strategy: str, candidates,
                      describe) -> Optional[Distractor]:
    """The first accepted answer with one value's cell replaced by a candidate cell (answer values in
    seeded order, `candidates(cell)` in its own order), values already in the answer skipped."""
    taken = _answer_texts(q)
    for i in _shuffled(rng, range(len(q.answer_rows))):
        cell = t.data_cell_of(q.answer_rows[i][-1])
        if cell is None:
            continue
        for other in candidates(cell):
            if option_value_key(other.answer_text) in taken:
                continue
            d = _accept(q, _replace_value(q, i, other.answer_text), strategy, describe(cell, other))
            if d:
                return d
    return None


def _group_aggregates(t: ChoiceTable, cell: ValueCell) -> list[ValueCell]:
    """Aggregates of a group the data cell belongs to, in its own row or column, most specific first."""
    found = []
    for a in t.cells.values():
        if a.role != "aggregate":
            continue
        same_col = a.col_group == cell.col_group and cell.row_group[:len(a.row_group)] == a.row_group
        same_row = a.row_group == cell.row_group and cell.col_group[:len(a.col_group)] == a.col_group
        if same_col or same_row:
            found.append(a)
    return sorted(found, key=lambda a: (-(len(a.row_group) + len(a.col_group)), a.row, a.col))


def aggregate_for_data(q: Question, t: ChoiceTable, rng: random.Random) -> Optional[Distractor]:
    """A shown aggregate of the same group instead of the data cell, or a data cell of the group
    instead of the shown aggregate (template 5)."""
    taken = _answer_texts(q)
    if q.reads_shown_aggregate:
        cells = q.selected_cells(t)
        for c in _shuffled(rng, sorted(cells, key=lambda c: (c.row, c.col))):
            if option_value_key(c.answer_text) not in taken:
                d = _accept(q, _replace_value(q, 0, c.answer_text), "aggregate_for_data",
                            f"aggregate -> data cell row {c.row} column {c.col}")
                if d:
                    return d
        return None
    if not q.selects_values_only:
        return None
    return _swap_answer_cell(
        q, t, rng, "aggregate_for_data", lambda cell: _group_aggregates(t, cell),
        lambda cell, a: f"data cell row {cell.row} column {cell.col} -> aggregate row {a.row} column {a.col}")


def _siblings(t: ChoiceTable, attribute: str, value: str, excluded: set) -> list[str]:
    """Other values of the attribute, those under the same parent values first (2020 for 2021)."""
    parent_of = t.parents_of(attribute)
    mine = parent_of.get(value)
    others = sorted(v for v in parent_of if v not in excluded)
    return [v for v in others if parent_of[v] == mine] + [v for v in others if parent_of[v] != mine]


def sibling_condition(q: Question, t: ChoiceTable, rng: random.Random) -> Optional[Distractor]:
    """The answer with one condition value replaced by a sibling value of the same attribute."""
    filters = q.spec["filters"]
    for fi in _shuffled(rng, range(len(filters))):
        f = filters[fi]
        for vi in _shuffled(rng, range(len(f["values"]))):
            old = f["values"][vi]
            for new in _siblings(t, f["attribute"], old, set(f["values"]))[:4]:
                spec = dict(q.spec, filters=[dict(g, values=list(g["values"])) for g in filters])
                spec["filters"][fi]["values"][vi] = new
                d = _accept(q, evaluate_spec(t.rows, spec), "sibling_condition", f"{f['attribute']}: {old} -> {new}")
                if d:
                    return d
    return None


def wrong_function(q: Question, t: ChoiceTable, rng: random.Random) -> Optional[Distractor]:
    """The answer with one aggregate function swapped for its partner (min for max, sum for average)."""
    aggregates = [i for i, s in enumerate(q.spec["select"]) if s["kind"] == "aggregate"]
    for i in _shuffled(rng, aggregates):
        old = q.spec["select"][i]["function"]
        spec = dict(q.spec, select=[dict(s) for s in q.spec["select"]])
        spec["select"][i]["function"] = SWAPPED_FUNCTION[old]
        # the same WHERE clause: the question's selected rows, aggregated by the other function
        d = _accept(q, evaluate_filtered(t.rows, spec, q.selected(t)), "wrong_function", f"{old} -> {SWAPPED_FUNCTION[old]}")
        if d:
            return d
    return None


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def perturbed_numbers(text: str, rng: random.Random, n: int = 8) -> list[str]:
    """Nearby numbers with the same number of decimals as `text` (an answer's canonical number)."""
    places = _decimals(text)
    step = Decimal(1).scaleb(-places)
    x = Decimal(text)
    # a few units of the last place, or a few percent of the value, whichever is larger
    spread = max(3, int(abs(x) / step * Decimal("0.05")))
    out = []
    for _ in range(n * 3):
        k = rng.randint(1, spread) * rng.choice((-1, 1))
        y = x + k * step
        if (x >= 0 and y < 0) or y == x:
            continue
        s = format(y.quantize(step), "f")
        if _decimals(format_value(float(s))) == places and s not in out:
            out.append(s)
        if len(out) >= n:
            break
    return out


def numeric_perturbation(q: Question, t: ChoiceTable, rng: random.Random) -> Optional[Distractor]:
    """One answer number replaced by a nearby number absent from the answer, same precision (R2)."""
    taken = _answer_texts(q)
    # only the values and aggregates of the SELECT list are numbers; a label like 2019 is not perturbed
    measured = [j for j, s in enumerate(q.spec["select"]) if s["kind"] != "attribute"]
    numeric = [(i, j) for i, r in enumerate(q.answer_rows) for j in measured
               if j < len(r) and r[j] is not None and _NUMBER.match(r[j])]
    for i, j in _shuffled(rng, numeric):
        old = q.answer_rows[i][j]
        for s in perturbed_numbers(old, rng):
            if option_value_key(s) in taken:
                continue
            d = _accept(q, _replace_value(q, i, s, j), "numeric_perturbation", f"{old} -> {s}")
            if d:
                return d
    return None


STRATEGY_FUNCTIONS: dict[str, Callable] = {
    "neighbour_cell": neighbour_cell,
    "aggregate_for_data": aggregate_for_data,
    "sibling_condition": sibling_condition,
    "wrong_function": wrong_function,
    "numeric_perturbation": numeric_perturbation,
}
