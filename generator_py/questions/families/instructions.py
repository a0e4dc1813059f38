"""TReB's instruction-following subtask on an HCT: a table question asked with an output instruction a rule can
check; `instruction_followed` (evaluation_py.scoring.instructions) checks a response by rule, apart from whether
its values are right, and the oracle writes its answer as the instruction says (the same module's `write`).

`instruction_following`: the cells of 2-4 row paths at one column path (or 2-4 column paths on one row path).
Instructions (`spec.instruction.kind`): `descending` (the numbers from largest to smallest), `one_decimal`
(each number with exactly one decimal), `max_words` (at most `words` words, the number of values asked) — the
answer holds the values so ordered or rounded —, `json_array` (a JSON array of the numbers), `with_unit` (each
number followed by the measure's `unit`, seed measure_units) and `prefix` (the answer begins with `prefix`):
the answer holds the values, the form is the response's.
`instruction_names`: which of 2-4 cells differing in one attribute whose labels have letters (no years) has the
largest value, its label asked in upper-case letters (`upper_case`); the answer is the label.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Optional

import numpy as np

from ..spec import filtered_rows, identifier
from ..template_syntax import NLRequirements
from ...core.formatting import format_number
from .computed import ComputedFamily, facts_for, from_sql, value_sql, values_of, where_sql
from .draws import sample as pick, sibling_cells

INSTRUCTION_KINDS = ("descending", "one_decimal", "max_words", "json_array", "with_unit", "prefix")
PREFIX = "Result:"  # the fixed opening a `prefix` instruction asks for


def instruction_text(instruction: dict) -> str:
    kind = instruction["kind"]
    if kind == "descending":
        return "List the numbers in descending order, largest first."
    if kind == "one_decimal":
        return "Write each number with exactly one decimal (e.g. 12.0)."
    if kind == "json_array":
        return "Answer with a JSON array of the numbers and nothing else (e.g. [12.5, 7])."
    if kind == "with_unit":
        return f"Write each number followed by its unit, {instruction['unit']} (e.g. 12.5 {instruction['unit']})."
    if kind == "prefix":
        return f"Begin your answer with \"{instruction['prefix']}\", then give the numbers."
    if kind == "upper_case":
        return "Write the name in upper-case letters only."
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
    single_answer = False
    nl = NLRequirements(27)

    def applicable(self, m):
        return len(m.row_paths) >= 2 or len(m.col_paths) >= 2

    def draw(self, m, rng, variety):
        if len(m.row_paths) >= 2 and (len(m.col_paths) < 2 or rng.random() < 0.5):
            filters = m.filters_for("row", pick(rng, m.row_paths, 2, 4)) + m.filters_for("col", [rng.choice(m.col_paths)])
        else:
            filters = m.filters_for("row", [rng.choice(m.row_paths)]) + m.filters_for("col", pick(rng, m.col_paths, 2, 4))
        unit = m.measure.knowledge.unit if m.measure.knowledge is not None else None
        kind = rng.choice([k for k in INSTRUCTION_KINDS if k != "with_unit" or unit])
        instruction = {"kind": kind}
        if kind == "max_words":  # as many words as values asked
            instruction["words"] = len(filtered_rows(m.rows, {"filters": filters}))
        elif kind == "with_unit":
            instruction["unit"] = unit
        elif kind == "prefix":
            instruction["prefix"] = PREFIX
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
        # the cells in relational row order, which is the table's order of the generator's rows too
        values = np.asarray(table.columns.values(spec["filters"]), dtype=float)
        kind = spec["instruction"]["kind"]
        if kind == "one_decimal":
            texts = [f"{math.floor(v * 10 + 0.5) / 10:.1f}" for v in values]
        else:
            texts = [format_number(float(v)) for v in (np.sort(values)[::-1] if kind == "descending" else values)]
        return " | ".join(texts)


class InstructionNames(ComputedFamily):
    """Which of 2-4 cells differing in one attribute has the largest value, its label asked in upper case."""

    family_id = "instruction_names"
    treb_skill, treb_subtask = "NLU", "instruction_following"
    treb_metric = "instruction_followed"
    nl = NLRequirements(32, (("OPPATTR",),), frozenset({"OPPATTR"}))

    def draw(self, m, rng, variety):
        drawn = sibling_cells(m, rng)
        if drawn is None:
            return None
        filters, attribute = drawn
        labels = next(f["values"] for f in filters if f["attribute"] == attribute)
        if not all(any(ch.isalpha() for ch in label) for label in labels):
            return None  # a year has no letters to write in upper case
        return {"computation": "largest_label", "filters": filters, "attribute": attribute,
                "instruction": {"kind": "upper_case"}}, {}

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, spec)
        xs = values_of(m.rows, sel)
        if len(xs) < 2 or len(set(xs)) < len(xs):
            return None
        i = m.rows.index[spec["attribute"]]
        return [[max(zip(xs, (r[i] for r in sel)))[1]]]

    def finish_question(self, text, spec):
        return f"{text} {instruction_text(spec['instruction'])}"

    def metadata(self, spec, m):
        return {**super().metadata(spec, m), "projected_attributes": [spec["attribute"]], "aggregations": [],
                "grouping": "none", "ordering": "desc", "top_k": 1}

    def statement(self, spec, m):
        a = identifier(spec["attribute"])
        sql = f"SELECT {a} FROM {from_sql()}{where_sql(spec['filters'])} ORDER BY {value_sql()} DESC LIMIT 1"
        facts = facts_for(spec["filters"])
        facts.projected_attrs = [spec["attribute"]]
        return sql, facts, len(filtered_rows(m.rows, spec))

    def cross_check(self, spec, table):
        t = table.columns
        mask = t.mask(spec["filters"])
        return str(t.attrs[spec["attribute"]][mask][int(np.argmax(t.value[mask]))])


FAMILIES = (InstructionFollowing(), InstructionNames())
