"""Whether a response follows the output instruction its question states (the instruction families,
generator_py/questions/families/instructions.py), checked by rule on the extracted answer, apart from whether
its values are right; and how an answer that follows it is written (`write`, what the oracle answers).
Instructions are JSON objects (`benchmark_questions.output_instruction`):

- `{"kind": "descending"}`: at least two numbers, each no larger than the one before;
- `{"kind": "one_decimal"}`: at least one number, every number written with exactly one decimal;
- `{"kind": "max_words", "words": N}`: one to N words (runs of letters, digits, `.`, `,`, `%`, `-`; the
  `||` and `|` separators and punctuation alone are no words);
- `{"kind": "json_array"}`: the answer is a JSON array (a ```` ``` ```` fence around it allowed) of one or more
  numbers or strings, and nothing else;
- `{"kind": "with_unit", "unit": U}`: at least one number, every number followed by U (case aside, a space
  between them allowed);
- `{"kind": "prefix", "prefix": P}`: the answer begins with P (case kept; white space before it allowed);
- `{"kind": "upper_case"}`: the answer has letters, none of them lower-case.

A question without an instruction has nothing to violate (NaN: no score); an unknown kind is a ValueError
naming it.
"""
from __future__ import annotations

import json
import math
import re
from typing import Optional, Sequence

_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.(\d+))?(?![\w.]*\d)")
_WORD = re.compile(r"[^\W_][\w.,%-]*")
_FENCE = re.compile(r"^```[\w+-]*\s*\n?(.*?)\n?```$", re.DOTALL)
KINDS = ("descending", "one_decimal", "max_words", "json_array", "with_unit", "prefix", "upper_case")


def _numbers(text: str) -> list[tuple[float, Optional[str], int]]:
    """(value, its decimals or None, where it ends) of every number in `text`."""
    out = []
    for m in _NUMBER.finditer(text):
        try:
            out.append((float(m.group(0).replace(",", "")), m.group(1), m.end()))
        except ValueError:
            continue
    return out


def _checked(instruction) -> dict:
    if isinstance(instruction, str):
        instruction = json.loads(instruction)
    if instruction.get("kind") not in KINDS:
        raise ValueError(f"output instruction {instruction!r}: kind must be one of {', '.join(KINDS)}")
    return instruction


def _json_array(text: str) -> bool:
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return (isinstance(value, list) and bool(value)
            and all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value))


def followed(answer: Optional[str], instruction) -> float:
    """1.0 when `answer` follows `instruction` (a dict or its JSON text), else 0.0; NaN without one."""
    if instruction is None or (isinstance(instruction, float) and instruction != instruction):
        return math.nan
    instruction = _checked(instruction)
    kind = instruction["kind"]
    text = "" if answer is None else str(answer)
    if kind == "descending":
        xs = [x for x, _, _ in _numbers(text)]
        return float(len(xs) >= 2 and all(a >= b for a, b in zip(xs, xs[1:])))
    if kind == "one_decimal":
        ns = _numbers(text)
        return float(bool(ns) and all(d is not None and len(d) == 1 for _, d, _ in ns))
    if kind == "json_array":
        return float(_json_array(text))
    if kind == "with_unit":
        unit = instruction["unit"].lower()
        ns = _numbers(text)
        lowered = text.lower()
        return float(bool(ns) and all(lowered[end:].lstrip(" ").startswith(unit) for _, _, end in ns))
    if kind == "prefix":
        return float(text.lstrip().startswith(instruction["prefix"]))
    if kind == "upper_case":
        return float(any(ch.isalpha() for ch in text) and not any(ch.islower() for ch in text))
    words = _WORD.findall(text)
    return float(1 <= len(words) <= int(instruction["words"]))


def _json_value(v: str):
    try:
        x = float(v)
    except ValueError:
        return v
    return int(x) if x == int(x) and "." not in v else x


def write(values: Sequence[str], instruction) -> str:
    """An answer of `values` (the ground truth's, in order) written as `instruction` asks: what a response that
    follows it says (the oracle's answer). Without an instruction, the values joined by ` || `."""
    plain = " || ".join(values)
    if instruction is None or (isinstance(instruction, float) and instruction != instruction):
        return plain
    instruction = _checked(instruction)
    kind = instruction["kind"]
    if kind == "json_array":
        return json.dumps([_json_value(v) for v in values])
    if kind == "with_unit":
        return " || ".join(f"{v} {instruction['unit']}" for v in values)
    if kind == "prefix":
        return f"{instruction['prefix']} {plain}"
    if kind == "upper_case":
        return plain.upper()
    return plain  # the values already are as asked (ordered, rounded, as many words as values)
