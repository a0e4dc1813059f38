"""TReB's instruction-following subtask on an HCT: the cells of 2-4 row paths at one column path (or 2-4
column paths on one row path), asked with an output instruction a rule can check. The answer follows the
instruction itself (so the oracle, answering with it, follows it too); `instruction_followed`
(evaluation_py.scoring.instructions) checks a response by rule, apart from whether its values are right.

Instructions (`spec.instruction.kind`): `descending` (the numbers from largest to smallest), `one_decimal`
(each number with exactly one decimal), `max_words` (at most `words` words, the number of values asked).
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Optional

from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from ...core.formatting import format_number
from .computed import ComputedFamily, facts_for, from_sql, value_sql, values_of, where_sql
from .draws import sample as pick

INSTRUCTION_KINDS = ("descending", "one_decimal", "max_words")


def instruction_text(instruction: dict) -> str:
    kind = instruction["kind"]
    if kind == "descending":
        return "List the numbers in descending order, largest first."
    if kind == "one_decimal":
        return "Write each number with exactly one decimal (e.g. 12.0)."
    return f"Answer with the numbers alone, in at most {instruction['words']} words."


def one_decimal(x: Fraction) -> Optional[str]:
    """The value as the table prints it (two decimals), rounded to one decimal and printed with it; None when
    the printed value ends in 5 (a tie: readers round it either way)."""
    shown = Decimal(format_number(float(x)))
    if abs(shown * 10) % 1 == Decimal("0.5"):
        return None
    return str(shown.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


class InstructionFollowing(ComputedFamily):
    """Several cells, asked with an output instruction (descending order, one decimal, at most N words)."""

    family_id = "instruction_following"
    treb_skill, treb_subtask = "NLU", "instruction_following"
    treb_metric = "instruction_followed"
    nl = NLRequirements(27)

    def applicable(self, m):
        return len(m.row_paths) >= 2 or len(m.col_paths) >= 2

    def draw(self, m, rng, variety):
        if len(m.row_paths) >= 2 and (len(m.col_paths) < 2 or rng.random() < 0.5):
            filters = m.filters_for("row", pick(rng, m.row_paths, 2, 4)) + m.filters_for("col", [rng.choice(m.col_paths)])
        else:
            filters = m.filters_for("row", [rng.choice(m.row_paths)]) + m.filters_for("col", pick(rng, m.col_paths, 2, 4))
        kind = rng.choice(INSTRUCTION_KINDS)
        instruction = {"kind": kind}
        if kind == "max_words":  # as many words as values asked
            instruction["words"] = len(filtered_rows(m.rows, {"filters": filters}))
        return {"computation": "instructed_lookup", "filters": filters, "instruction": instruction}, {}

    def compute(self, spec, m, extra):
        xs = values_of(m.rows, filtered_rows(m.rows, spec))
        if len(xs) < 2 or len(set(xs)) < len(xs):
            return None  # one value is no list; equal values leave the order open
        kind = spec["instruction"]["kind"]
        if kind == "one_decimal":
            texts = [one_decimal(x) for x in xs]
            return None if None in texts else [[t] for t in texts]
        ordered = sorted(xs, reverse=True) if kind == "descending" else xs
        return [[format_number(float(x))] for x in ordered]

    def finish_question(self, text: str, spec: dict) -> str:
        return f"{text} {instruction_text(spec['instruction'])}"

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "aggregations": [], "grouping": "none",
                "ordering": "desc" if spec["instruction"]["kind"] == "descending" else "none"}

    def statement(self, spec, m):
        order = f" ORDER BY {value_sql()} DESC" if spec["instruction"]["kind"] == "descending" else ""
        n = len(filtered_rows(m.rows, spec))
        return f"SELECT {value_sql()} FROM {from_sql()}{where_sql(spec['filters'])}{order}", facts_for(spec["filters"]), n

    def cross_check(self, spec, table):
        values = [float(v) for v in table.columns.values(spec["filters"])]
        kind = spec["instruction"]["kind"]
        if kind == "one_decimal":
            return f"{math.floor(values[0] * 10 + 0.5) / 10:.1f}"
        return format_number(max(values) if kind == "descending" else values[0])


FAMILIES = (InstructionFollowing(),)
