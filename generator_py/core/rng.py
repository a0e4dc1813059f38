"""Seeded randomness that is stable across processes and platforms (never Python's salted hash())."""
from __future__ import annotations

import hashlib
import random
from typing import Iterable


def stable_int(*parts: object) -> int:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def stable_ints(prefix: tuple, lasts: Iterable[object]) -> list[int]:
    """`[stable_int(*prefix, last) for last in lasts]`, the prefix hashed once (a copy of its hash state
    finishes each value)."""
    head = hashlib.sha256(("|".join(str(p) for p in prefix) + "|").encode("utf-8")) if prefix else hashlib.sha256()
    out = []
    for last in lasts:
        h = head.copy()
        h.update(str(last).encode("utf-8"))
        out.append(int.from_bytes(h.digest()[:8], "big"))
    return out


def rng_for(*parts: object) -> random.Random:
    return random.Random(stable_int(*parts))
