"""Options as text: the HCT-QA `gt` format, and the rule that decides whether two options differ.

The rule mirrors the scoring normalisation (strict mode reads a `gt` string as its set of distinct
values, case-folded, numbers by value), kept here because generator_py never imports evaluation_py.
"""
from __future__ import annotations

import re
from functools import lru_cache
from decimal import Decimal, InvalidOperation
from typing import Iterable, Sequence

from ..formatting import format_value

_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


@lru_cache(maxsize=1 << 18)
def option_value_key(value: str) -> str:
    v = " ".join(value.split()).lower()
    if _NUMBER.match(v):
        try:
            return format(Decimal(v).normalize(), "f")
        except InvalidOperation:
            return v
    return v


@lru_cache(maxsize=1 << 16)
def option_values(option: str) -> frozenset[str]:
    """The distinct normalised values an option states (`{a | b} || {c}` -> {a, b, c})."""
    flat = option.replace("{", " ").replace("}", " ").replace("||", "|")
    return frozenset(k for k in (option_value_key(v) for v in flat.split("|")) if k)


def options_differ(a: str, b: str) -> bool:
    return option_values(a) != option_values(b)


_VALUE_TEXT: dict = {}  # (type, value) -> text: a type in the key keeps True and 1 apart


def _value_text(v: object):
    key = (v.__class__, v)
    text = _VALUE_TEXT.get(key)
    if text is None and v is not None:
        text = _VALUE_TEXT[key] = format_value(v)
    return text


def answer_option(rows: Iterable[Sequence[object]]) -> str:
    """Answer rows (raw values) as an option in the `gt` format of benchmark_questions.answer_gt
    (release.gt.format_gt, with each value's text remembered: items format the same numbers often)."""
    parts = []
    for row in rows:
        parts.append("{" + " | ".join(t for t in (_value_text(v) for v in row) if t is not None) + "}")
    return " || ".join(parts)
