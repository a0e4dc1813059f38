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

from .option_text import option_value_key

CONTENT_VARIANTS = ("original", "letters", "numbers")


def _random_string(variant: str, rng: random.Random) -> str:
    n = rng.randint(1, 8)
    if variant == "letters":
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))
    return rng.choice("123456789") + "".join(rng.choice(string.digits) for _ in range(n - 1))


def replacement_map(grid, variant: str, rng: random.Random) -> dict[str, str]:
    """Distinct non-empty texts (in sorted order, for determinism) -> their random strings."""
    texts = sorted({t.strip() for line in grid for t in line if t.strip()})
    mapping: dict[str, str] = {}
    by_key: dict[str, str] = {}  # one text per normalised key
    used: set[str] = set()
    for t in texts:
        key = option_value_key(t)
        if key in by_key:
            mapping[t] = mapping[by_key[key]]
            continue
        s = _random_string(variant, rng)
        while s in used:
            s = _random_string(variant, rng)
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
    return [[mapping[t.strip()] if t.strip() else "" for t in line] for line in grid]


def grid_csv(grid) -> str:
    """A grid as CSV in benchmark_tables.csv's style (every field quoted)."""
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(grid)
    return out.getvalue()
