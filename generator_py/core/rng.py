"""Seeded randomness that is stable across processes and platforms (never Python's salted hash())."""
from __future__ import annotations

import hashlib
import random


def stable_int(*parts: object) -> int:
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def rng_for(*parts: object) -> random.Random:
    return random.Random(stable_int(*parts))
