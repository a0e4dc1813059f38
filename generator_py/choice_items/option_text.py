"""Options as text: the HCT-QA `gt` format, and the rule that decides whether two options differ.

The rule mirrors the scoring normalisation (strict mode reads a `gt` string as its set of distinct
values, case-folded, numbers by value), kept here because generator_py never imports evaluation_py.
"""
from __future__ import annotations

import re
from functools import lru_cache
from decimal import Decimal, InvalidOperation
from typing import Iterable, Sequence

from ..release.gt import format_gt

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
    keys = set(map(option_value_key, flat.split("|")))
    keys.discard("")
    return frozenset(keys)


def options_differ(a: str, b: str) -> bool:
    return option_values(a) != option_values(b)


def answer_option(rows: Iterable[Sequence[object]]) -> str:
    """Answer rows (raw values) as an option: the `gt` string of benchmark_questions.answer_gt."""
    return format_gt(rows)
