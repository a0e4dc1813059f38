"""Content variants of a grid (TabIS Figure 11): every cell text replaced consistently by a random string.

`letters`: 1-8 lower-case letters; `numbers`: 1-8 digits without a leading zero. Equal texts get
equal strings and different texts different ones (also after the options' normalisation), so a
probe's right and wrong options stay different; empty cells stay empty.
"""
from __future__ import annotations

import csv
import io
import random
import string
from math import floor

from .option_text import option_value_key

CONTENT_VARIANTS = ("original", "letters", "numbers")


def _random_strings(variant: str, rng: random.Random, n: int) -> list[str]:
    """n random strings of 1-8 characters, drawn in bulk (one draw per character is too slow here)."""
    if n == 1:
        return [_random_string(variant, rng)]
    lengths = rng.choices(range(1, 9), k=n)
    if variant == "letters":
        chars = "".join(rng.choices(string.ascii_lowercase, k=sum(lengths)))
    else:
        firsts = rng.choices("123456789", k=n)
        rest = "".join(rng.choices(string.digits, k=sum(lengths) - n))
    out, at = [], 0
    for i, k in enumerate(lengths):
        if variant == "letters":
            out.append(chars[at:at + k])
            at += k
        else:
            out.append(firsts[i] + rest[at:at + k - 1])
            at += k - 1
    return out


def _random_string(variant: str, rng: random.Random) -> str:
    """_random_strings(variant, rng, 1)[0] with the same draws (random.choices picks population[floor(random() * len)]),
    without its set-up: a redraw after a repeat is one string."""
    draw = rng.random
    k = 1 + floor(draw() * 8.0)
    if variant == "letters":
        return "".join([_LOWER[floor(draw() * 26.0)] for _ in range(k)])
    first = _FIRST_DIGITS[floor(draw() * 9.0)]
    return first + "".join([_DIGITS[floor(draw() * 10.0)] for _ in range(k - 1)])


_LOWER, _FIRST_DIGITS, _DIGITS = string.ascii_lowercase, "123456789", string.digits


def replacement_map(grid, variant: str, rng: random.Random) -> dict[str, str]:
    """Distinct non-empty texts (in sorted order, for determinism) -> their random strings."""
    texts = sorted({t.strip() for line in grid for t in line if t.strip()})
    mapping: dict[str, str] = {}
    by_key: dict[str, str] = {}  # one text per normalised key
    used: set[str] = set()
    pool = _random_strings(variant, rng, len(texts))
    for t in texts:
        key = option_value_key(t)
        if key in by_key:
            mapping[t] = mapping[by_key[key]]
            continue
        s = pool.pop() if pool else _random_string(variant, rng)
        while s in used:  # a repeat: draw again
            s = pool.pop() if pool else _random_string(variant, rng)
        used.add(s)
        by_key[key] = t
        mapping[t] = s
    return mapping


def variant_grid(grid, variant: str, rng: random.Random) -> list[list[str]]:
    if variant == "original":
        return grid
    if variant not in CONTENT_VARIANTS:
        raise ValueError(f"unknown content variant {variant!r} (one of {', '.join(CONTENT_VARIANTS)})")
    mapping = replacement_map(grid, variant, rng)
    mapping[""] = ""  # empty cells stay empty
    return [[mapping[t.strip()] for t in line] for line in grid]


def grid_csv(grid) -> str:
    """A grid as CSV in benchmark_tables.csv's style (every field quoted)."""
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(grid)
    return out.getvalue()
