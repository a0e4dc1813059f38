"""Pairs of tables for the questions that read two tables (families with `n_tables` 2): the same measure in
two periods.

A table's partner is another table of its domain and table template with the same attributes, a period
attribute (a year: every label four digits, on every row) whose labels the two tables do not share, and at
least one category in common (the labels of every other attribute, none missing), so that one cell of the
first table has its counterpart in another year of the second. Each table draws its partner among those
with its own RNG (seed, "table-pair", table id), so the pairing does not depend on the order the tables
come in or on how the generation is split over workers; a table without such a partner gets none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from ..core.rng import rng_for


def is_year(label: Optional[str]) -> bool:
    return label is not None and len(label) == 4 and label.isdigit()


@dataclass(frozen=True)
class PairingKey:
    """What a table must share with its partner (domain, template, attributes) and what it shows."""

    group: tuple
    period: str  # the period attribute
    periods: frozenset  # its labels
    categories: frozenset  # the other attributes' labels per row (attribute order of `group`), none missing


def pairing_key(domain: str, template_name: str, names: Sequence[str], rows: Iterable[tuple]) -> Optional[PairingKey]:
    """The key of one table (`rows`: attribute labels in the order of `names`, then the value), or None
    when it has no period attribute."""
    rows = list(rows)
    order = sorted(range(len(names)), key=lambda i: names[i])
    periods = [i for i in order if rows and all(is_year(r[i]) for r in rows)]
    if not periods:
        return None
    p = periods[0]
    rest = [i for i in order if i != p]
    categories = frozenset(k for k in (tuple(r[i] for i in rest) for r in rows) if None not in k)
    return PairingKey((domain, template_name, tuple(names[i] for i in order)), names[p],
                      frozenset(r[p] for r in rows), categories)


def pairs_with(a: PairingKey, b: PairingKey) -> bool:
    return (a.group == b.group and a.period == b.period and a.periods.isdisjoint(b.periods)
            and not a.categories.isdisjoint(b.categories))


def table_partners(keys: dict[str, Optional[PairingKey]], seed: int) -> dict[str, str]:
    """table_id -> its partner's table_id, for every table that has one (`keys`: pairing_key per table)."""
    groups: dict[tuple, list[str]] = {}
    for tid in sorted(keys):
        if keys[tid] is not None:
            groups.setdefault(keys[tid].group, []).append(tid)
    out: dict[str, str] = {}
    for members in groups.values():
        for tid in members:
            a = keys[tid]
            eligible = [u for u in members if u != tid and pairs_with(a, keys[u])]
            if eligible:
                out[tid] = rng_for(seed, "table-pair", tid).choice(eligible)
    return out


def partners_of_tables(tables: Sequence, seed: int) -> dict[str, str]:
    """table_partners of relational tables (`RelationalTable`s with `plain_rows`, or frames)."""
    from .spec import Rows

    keys = {}
    for t in tables:
        names = [a.name for a in t.attributes]
        rows = getattr(t, "plain_rows", None)
        if rows is None:
            rows = Rows.from_frame(t.frame, names).rows
        keys[t.table_id] = pairing_key(t.domain, t.template_name, names, rows)
    return table_partners(keys, seed)
