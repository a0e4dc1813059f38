"""The relational table (T_REL): the in-memory table question generation reads, with its HCT facts, and the
one reader of the built relational rows (int_relational_rows) every Python consumer goes through."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple, Optional

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class TableAttribute:
    name: str  # relational column name, an identifier; `_` reads as a space in text
    code: str  # vocabulary code: an independent attribute or a hierarchical group
    level: int  # 1-based level inside its code (always 1 for independent attributes)
    axis: str  # "row" or "col": where the HCT shows it
    depth: int  # 1-based header level on its axis, 1 = outermost


@dataclass(frozen=True)
class ShownAggregate:
    """An aggregate cell the HCT displays (agg_fun of the table over the data cells it covers).

    It covers every data cell whose row path starts with `row_group` and whose column path starts
    with `col_group` (the labels of the row / column attributes, outermost first); an empty tuple
    means the whole axis.
    """

    row_group: tuple[str, ...]
    col_group: tuple[str, ...]
    value: float


@dataclass(frozen=True)
class RelationalTable:
    table_id: str
    domain: str
    template_name: str
    value_name: str
    attributes: tuple[TableAttribute, ...]  # row attributes outer->inner, then column attributes
    frame: pd.DataFrame  # one text column per attribute (None where a branch stops early) + float `Value`
    value_is_integer: bool
    agg_fun: str  # sum | avg | min | max
    agg_name: str
    shown_aggregates: tuple[ShownAggregate, ...]

    @property
    def row_attributes(self) -> tuple[TableAttribute, ...]:
        return tuple(a for a in self.attributes if a.axis == "row")

    @property
    def col_attributes(self) -> tuple[TableAttribute, ...]:
        return tuple(a for a in self.attributes if a.axis == "col")


class TableRows(NamedTuple):
    """One table of int_relational_rows: its attribute names per axis and its records in `rel_row` order,
    each the row labels, then the column labels (None where a branch stops early), then the float Value."""

    row_attributes: tuple[str, ...]
    col_attributes: tuple[str, ...]
    records: list[tuple]

    @property
    def names(self) -> list[str]:
        return list(self.row_attributes) + list(self.col_attributes)


def label_text(v, canon: dict) -> Optional[str]:
    """A label as text (None for NULL / NaN), one str object per distinct label in `canon`."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    v = str(v)
    return canon.setdefault(v, v)  # smaller pickles, less memory


def _items(v) -> list:
    """A list cell (a numpy array from DuckDB's .df(), or a list) as a list; .tolist() is far faster."""
    if v is None:
        return []
    return v.tolist() if isinstance(v, np.ndarray) else list(v)


def relational_rows(rows: pd.DataFrame, table_ids: Optional[Iterable[str]] = None,
                    canon: Optional[dict] = None) -> dict[str, TableRows]:
    """The one reader of int_relational_rows (columns table_id, rel_row, row_labels, col_labels, value and,
    when present, row_attributes, col_attributes): table_id -> its TableRows, only `table_ids` when given.
    `canon` (label -> itself) is shared with a caller that interns more labels of the same tables."""
    wanted = None if table_ids is None else set(table_ids)
    has_names = "row_attributes" in rows and "col_attributes" in rows
    n = len(rows)
    row_names = rows["row_attributes"].tolist() if has_names else [()] * n
    col_names = rows["col_attributes"].tolist() if has_names else [()] * n
    canon = {} if canon is None else canon
    by_table: dict[str, tuple] = {}
    for tid, rel, rl, cl, v, rn, cn in zip(rows["table_id"].tolist(), rows["rel_row"].tolist(),
                                           rows["row_labels"].tolist(), rows["col_labels"].tolist(),
                                           rows["value"].tolist(), row_names, col_names):
        if wanted is not None and tid not in wanted:
            continue
        entry = by_table.get(tid)
        if entry is None:
            entry = by_table[tid] = (tuple(str(x) for x in _items(rn)), tuple(str(x) for x in _items(cn)), [])
        rec = [label_text(x, canon) for x in _items(rl)]
        rec.extend(label_text(x, canon) for x in _items(cl))
        rec.append(float(v))
        entry[2].append((rel, tuple(rec)))
    out = {}
    for tid, (rn, cn, recs) in by_table.items():
        recs.sort(key=lambda r: r[0])
        out[tid] = TableRows(rn, cn, [r for _, r in recs])
    return out
