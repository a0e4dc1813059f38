"""Canonical text for numbers and answers, shared by every part that prints a value."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Iterable, Optional, Sequence


def _rounded(x: float) -> Decimal:
    # Round to 6 decimals first so that last-bit noise from different summation orders
    # (DuckDB vs SQLite) cannot push a value across a .xx5 boundary.
    return Decimal(repr(round(float(x), 6))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def format_number(x: float) -> str:
    """Integers as integers (`34`), reals rounded to two decimals, trailing zeros dropped (`12.5`)."""
    d = _rounded(x)
    if d == d.to_integral_value():
        return str(int(d))
    return format(d.normalize(), "f")


def format_cell_number(x: float, integer_table: bool) -> str:
    """HCT cell text: integers print as integers in integer tables, everything else with two decimals."""
    d = _rounded(x)
    if integer_table and d == d.to_integral_value():
        return str(int(d))
    return format(d, "f")


def format_value(v: object) -> Optional[str]:
    """One answer value as text: numbers canonical, text as is, NULL stays None."""
    if v is None:
        return None
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return format_number(v)
    if isinstance(v, Decimal):
        return format_number(float(v))
    return str(v)


def format_gt(rows: Iterable[Sequence[object]]) -> str:
    """Rows of values as the HCT-QA `gt` string: `{a | b} || {c | d}`; NULLs inside a row are left out."""
    parts = []
    for row in rows:
        values = [t for t in (format_value(v) for v in row) if t is not None]
        parts.append("{" + " | ".join(values) + "}")
    return " || ".join(parts)
