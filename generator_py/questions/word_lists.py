"""English lists of words: `a`, `a or b`, `a, b, or c` (serial comma)."""
from __future__ import annotations

from typing import Sequence


def _word_list(items: Sequence[str], word: str) -> str:
    """`a`, `a or b`, `a, b, or c` (serial comma), with `word` the conjunction."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} {word} {items[1]}"
    return ", ".join(items[:-1]) + f", {word} " + items[-1]


def or_list(items: Sequence[str]) -> str:
    return _word_list(items, "or")


def and_list(items: Sequence[str]) -> str:
    return _word_list(items, "and")
