"""Drawing helpers the SQL families share: random path subsets, aggregate choices, an empty spec, the
checks every aggregate family applies."""
from __future__ import annotations

import random
from typing import Optional, Sequence

from ..table_model import TableModel

# `paper`: Table III as written (SQL4, SQL7 and SQL8 carry two aggregates, SQL9 takes MIN);
# `extended`: one or two aggregates where Table III has two, any aggregate for SQL9.
QUESTION_VARIETIES = ("paper", "extended")
# aggregates that add values up: across values of a non-additive attribute they mean nothing
ADDING_AGGS = ("sum", "avg")
VALUE_SEL = [{"kind": "value"}]
EXPR = ("EXPR", "EXPRSUP")  # reserved words that name the aggregates


def sample(rng: random.Random, items: Sequence, lo: int, hi: int) -> list:
    """Between lo and hi items (at most all), in their order."""
    n = len(items)
    k = min(n, rng.randint(lo, hi))
    idx = sorted(rng.sample(range(n), k))
    return [items[i] for i in idx]


def paths(m: TableModel, axis: str, how: str, rng: random.Random) -> list[tuple]:
    """One ("one") or two to four ("many") random header paths of an axis."""
    items = m.row_paths if axis == "row" else m.col_paths
    return [rng.choice(items)] if how == "one" else sample(rng, items, 2, 4)


def aggregates(rng: random.Random, variety: str, allowed: Sequence[str], n: Optional[int] = None) -> list[dict]:
    """Distinct aggregates among those the measure admits (`allowed`, at least two)."""
    if n is None:
        n = 2 if variety == "paper" or rng.random() >= 0.35 else 1
    return [{"kind": "aggregate", "function": f} for f in rng.sample(list(allowed), n)]


def new_spec(filters, select, **kw) -> dict:
    s = {"filters": filters, "value_condition": None, "semi_join": None, "select": select,
         "group_by": [], "order_by": [], "limit": None}
    s.update(kw)
    return s


def ordered_by(attributes: Sequence[str]) -> list[dict]:
    return [{"kind": "attribute", "name": a, "direction": "asc"} for a in attributes]


def adds_across_parts(spec: dict, sel: list[tuple], m: TableModel) -> bool:
    """A sum or average whose rows (within one group) span two values of a non-additive attribute."""
    if not any(s["kind"] == "aggregate" and s["function"] in ADDING_AGGS for s in spec["select"]):
        return False
    for name in m.measure.non_additive:
        if name not in m.rows.index or name in spec.get("group_by", ()):
            continue
        i = m.rows.index[name]
        if len({r[i] for r in sel}) > 1:
            return True
    return False


def sibling_cells(m: TableModel, rng: random.Random, lo: int = 2, hi: int = 4) -> Optional[tuple[list[dict], str]]:
    """Cells that differ in one attribute only (`lo` to `hi` of them, in table order): a random cell's path and
    those of its axis that differ from it at one position alone ("Oslo, Bergen or Tromso", every other
    condition shared). Returns (their conditions, the attribute they differ in), or None when the drawn cell
    has no such sibling."""
    rp, cp = rng.choice(list(m.cells))
    options = []
    for axis, path, paths_ in (("row", rp, m.row_paths), ("col", cp, m.col_paths)):
        for j, label in enumerate(path):
            if label is None:
                continue
            same = [p for p in paths_ if p[j] is not None and all(p[k] == path[k] for k in range(len(path)) if k != j)]
            if len(same) >= lo:
                options.append((axis, j, same))
    if not options:
        return None
    axis, j, same = rng.choice(options)
    chosen = sample(rng, same, lo, hi)
    attrs = m.row_attrs if axis == "row" else m.col_attrs
    other = ("col", [cp]) if axis == "row" else ("row", [rp])
    filters = m.filters_for(axis, chosen) + m.filters_for(*other)
    varied = attrs[j]
    if not any(f["attribute"] == varied and len(f["values"]) == len(chosen) for f in filters):
        return None  # the paths differ below a level the conditions name: no one label per cell
    return filters, varied
