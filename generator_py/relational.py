"""The in-memory relational table (T_REL) that question generation reads, with its HCT facts."""
from __future__ import annotations

from dataclasses import dataclass

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
