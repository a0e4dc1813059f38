"""Whether a response follows the output instruction its question states (the instruction_following family,
generator_py/questions/families/instructions.py), checked by rule on the extracted answer, apart from whether
its values are right. Instructions are JSON objects (`benchmark_questions.output_instruction`):

- `{"kind": "descending"}`: at least two numbers, each no larger than the one before;
- `{"kind": "one_decimal"}`: at least one number, every number written with exactly one decimal;
- `{"kind": "max_words", "words": N}`: one to N words (runs of letters, digits, `.`, `,`, `%`, `-`; the
  `||` and `|` separators and punctuation alone are no words).

A question without an instruction has nothing to violate (1); an unknown kind is a ValueError naming it.
"""
from __future__ import annotations

import json
import math
import re
from typing import Optional

_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.(\d+))?(?![\w.]*\d)")
_WORD = re.compile(r"[^\W_][\w.,%-]*")
KINDS = ("descending", "one_decimal", "max_words")


def _numbers(text: str) -> list[tuple[float, Optional[str]]]:
    out = []
    for m in _NUMBER.finditer(text):
        try:
            out.append((float(m.group(0).replace(",", "")), m.group(1)))
        except ValueError:
            continue
    return out


def followed(answer: Optional[str], instruction) -> float:
    """1.0 when `answer` follows `instruction` (a dict or its JSON text), else 0.0; NaN without one."""
    if instruction is None or (isinstance(instruction, float) and instruction != instruction):
        return math.nan
    if isinstance(instruction, str):
        instruction = json.loads(instruction)
    kind = instruction.get("kind")
    if kind not in KINDS:
        raise ValueError(f"output instruction {instruction!r}: kind must be one of {', '.join(KINDS)}")
    text = "" if answer is None else str(answer)
    if kind == "descending":
        xs = [x for x, _ in _numbers(text)]
        return float(len(xs) >= 2 and all(a >= b for a, b in zip(xs, xs[1:])))
    if kind == "one_decimal":
        ns = _numbers(text)
        return float(bool(ns) and all(d is not None and len(d) == 1 for _, d in ns))
    words = _WORD.findall(text)
    return float(1 <= len(words) <= int(instruction["words"]))
