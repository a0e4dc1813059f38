"""Canonical text for numbers and answer values, shared by every part that prints a value.

The `gt` string made of these values is written by `generator_py.release.gt.format_gt`.
"""
from __future__ import annotations

from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from typing import Optional

# How a tie (an exact x.xx5) rounds: half up is the project's rule; half to even is how the
# HCT-QA release (computed in R) rounds, kept to reproduce its answers.
ROUNDINGS = {"half_up": ROUND_HALF_UP, "half_even": ROUND_HALF_EVEN}


def check_rounding(rounding: str) -> str:
    if rounding not in ROUNDINGS:
        raise ValueError(f"unknown rounding {rounding!r}; expected one of {sorted(ROUNDINGS)}")
    return rounding


def _rounded(x: float, rounding: str = "half_up") -> Decimal:
    # Round to 6 decimals first so that last-bit noise from different summation orders
    # (DuckDB vs SQLite) cannot push a value across a .xx5 boundary.
    return Decimal(repr(round(float(x), 6))).quantize(Decimal("0.01"), rounding=ROUNDINGS[rounding])


def format_number(x: float, rounding: str = "half_up") -> str:
    """Integers as integers (`34`), reals rounded to two decimals, trailing zeros dropped (`12.5`).

    `rounding` says how ties round: `half_up` (the default) or `half_even`.
    """
    d = _rounded(x, rounding)
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")


def format_cell_number(x: float, integer_table: bool) -> str:
    """HCT cell text: integers print as integers in integer tables, everything else with two decimals."""
    d = _rounded(x)
    if integer_table and d == d.to_integral_value():
        return str(int(d))
    return format(d, "f")


def format_value(v: object, rounding: str = "half_up") -> Optional[str]:
    """One answer value as text: numbers canonical (ties rounded by `rounding`), text as is, NULL stays None."""
    if v is None:
        return None
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return format_number(v, rounding)
    if isinstance(v, Decimal):
        return format_number(float(v), rounding)
    return str(v)

