"""Layout counterfactuals: a relational table of the benchmark laid out again, one table property changed at a time.

A counterfactual set is one sampled table of the benchmark (its *base*, the set's reference layout) and, per
property, a *toggle*: the base's layout with only the options that decide that property changed, so that the
toggle has the property when the base has not, or lacks it when the base has it. Every layout keeps the base's
data exactly: the same attributes in the same order, the same header values and cells; a layout only decides
where the split between row and column headers falls (at a boundary between two attribute codes, so a
hierarchy is never split between the axes) and the base's layout options (name position, aggregate positions,
row format, borders). So the relational table (T_REL) of every layout is the base's, row for row, and a
question whose SQL reads T_REL has one answer on every layout of the set: the base's own questions are asked
of each toggle, and each (base, toggle) pair compares the same questions on the same data with and without one
property.

The toggles are candidates: whether a toggle differs from its base in its property and in nothing else is
decided from the flags the build computes on the laid-out tables (`pairs.kept_toggles`), and only those enter
the benchmark.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence

import pandas as pd
import pyarrow as pa

from ..core.rng import stable_int
from ..tables.generation import ROWS_SCHEMA

#: How a toggle's table id is made from its base's: `<base>--cf--<property>`; a set is `<base>--cf`.
COUNTERFACTUAL_MARK = "--cf--"
SET_SUFFIX = "--cf"


@dataclass(frozen=True)
class Layout:
    """Where the split between row and column headers falls and the layout options of int_table_instances."""

    row_depth: int  # the first `row_depth` attributes are row headers, the rest column headers
    name_pos: str
    col_agg_pos: str
    row_agg_pos: str
    row_format: str
    borders: bool


@dataclass(frozen=True)
class Base:
    """A base table as its layouts need it: the attributes in T_REL order with their codes, and its layout."""

    table_id: str
    codes: tuple[str, ...]  # one per attribute, row attributes first
    layout: Layout

    @property
    def n_levels(self) -> int:
        return len(self.codes)

    def splits(self) -> tuple[int, ...]:
        """Every row depth that keeps each attribute code on one axis and both axes non-empty."""
        return tuple(s for s in range(1, self.n_levels) if self.codes[s - 1] != self.codes[s])

    def with_(self, **changes) -> Layout:
        layout = replace(self.layout, **changes)
        if layout.row_format == "indent" and layout.row_depth < 2:
            layout = replace(layout, row_format="new")  # indentation needs a parent level
        return layout


@dataclass(frozen=True)
class CounterfactualProperty:
    """One property a set varies: the flag of benchmark_tables it is about (`borders`: the rendering's rules, no
    flag), the other flags that may change with it (its own sub-properties, and standard_relational_table, which
    no property can leave unchanged on a table that has no other), and how the toggle is made from a base (None:
    the base cannot show this property changed; several layouts: candidates in order of preference, the first
    that changes nothing else is kept)."""

    name: str
    description: str
    may_change: frozenset
    toggle: Callable[[Base], "Optional[Layout | tuple[Layout, ...]]"]

    def toggles(self, base: Base) -> tuple[Layout, ...]:
        made = self.toggle(base)
        made = () if made is None else made if isinstance(made, tuple) else (made,)
        return tuple(layout for layout in made if layout != base.layout)

    @property
    def flag(self) -> Optional[str]:
        return None if self.name == "borders" else self.name


def _nesting_toggle(base: Base, axis: str) -> tuple[Layout, ...]:
    """The axis one header level deep when the base nests it, nested when it does not, the other axis nested, or
    flat, as it is: every such split, the nearest the base's first."""
    splits, n, s0 = base.splits(), base.n_levels, base.layout.row_depth

    def depth(s: int) -> int:  # of this axis, the split at row depth s
        return s if axis == "row" else n - s

    def other_nested(s: int) -> bool:
        return (n - s if axis == "row" else s) >= 2

    nested = depth(s0) >= 2
    options = [s for s in splits if (depth(s) >= 2) != nested and other_nested(s) == other_nested(s0)]
    return tuple(base.with_(row_depth=s) for s in sorted(options, key=lambda s: (abs(s - s0), s)))


def _flip(current: str, a: str, b: str) -> Optional[str]:
    return b if current == a else a if current == b else None


def _aggregates_toggle(base: Base, option: str, shown: str) -> Layout:
    """No aggregates on the axis when the base shows them, else aggregates after their groups (`shown`)."""
    current = getattr(base.layout, option)
    return base.with_(**{option: "none" if current != "none" else shown})


def _implicit_toggle(base: Base, option: str, before: str, after: str) -> Optional[Layout]:
    """The aggregates moved before their groups (labelled by the group: implicit) or after them (labelled with the
    aggregation term); None when the axis shows none."""
    moved = _flip(getattr(base.layout, option), before, after)
    return None if moved is None else base.with_(**{option: moved})


def _row_group_label_toggle(base: Base) -> Optional[Layout]:
    if base.layout.row_depth < 2:
        return None  # no parent level to head a group
    return base.with_(row_format="new" if base.layout.row_format == "indent" else "indent")


STANDARD = frozenset({"standard_relational_table"})


def _sub(axis_word: str, *names: str) -> frozenset:
    """An axis's flags (`{}` the axis word) and standard_relational_table."""
    return frozenset(n.format(axis_word) for n in names) | STANDARD


# a nested axis groups its headers, and the aggregates the base shows on it then include the groups' own: local
# aggregation comes and goes with the nesting (it is no option of its own)
_NESTING = ("{}_nesting", "balanced_{}_nesting", "unbalanced_{}_nesting", "symmetric_{}_nesting",
            "asymmetric_{}_nesting", "local_{}_aggregation")
_AGGREGATION = ("{}_aggregation", "global_{}_aggregation", "local_{}_aggregation", "explicit_{}_aggregation",
                "implicit_{}_aggregation")

PROPERTIES: tuple[CounterfactualProperty, ...] = (
    CounterfactualProperty(
        "row_nesting", "row headers on one level against nested row headers: an attribute moved between the "
        "column and the row headers (with the row groups' own aggregates where the base shows row aggregates)", _sub("row", *_NESTING), lambda b: _nesting_toggle(b, "row")),
    CounterfactualProperty(
        "column_nesting", "column headers on one level against nested column headers: an attribute moved between "
        "the row and the column headers (with the column groups' own aggregates where the base shows column "
        "aggregates)", _sub("column", *_NESTING), lambda b: _nesting_toggle(b, "col")),
    CounterfactualProperty(
        "row_aggregation", "no aggregate rows against aggregate rows (after their groups when the base has none)",
        _sub("row", *_AGGREGATION), lambda b: _aggregates_toggle(b, "row_agg_pos", "bottom")),
    CounterfactualProperty(
        "column_aggregation", "no aggregate columns against aggregate columns (after their groups when the base "
        "has none)", _sub("column", *_AGGREGATION), lambda b: _aggregates_toggle(b, "col_agg_pos", "right")),
    CounterfactualProperty(
        "implicit_row_aggregation", "aggregate rows after their groups, labelled with the aggregation term, "
        "against aggregate rows before their groups, labelled by the group alone (implicit aggregation terms)",
        frozenset(), lambda b: _implicit_toggle(b, "row_agg_pos", "top", "bottom")),
    CounterfactualProperty(
        "implicit_column_aggregation", "aggregate columns after their groups, labelled with the aggregation term, "
        "against aggregate columns before their groups, labelled by the group alone (implicit aggregation terms)",
        frozenset(), lambda b: _implicit_toggle(b, "col_agg_pos", "left", "right")),
    CounterfactualProperty(
        "split_header_cell", "an empty corner cell against a split corner naming the row and column attributes",
        STANDARD, lambda b: b.with_(name_pos="none_none" if b.layout.name_pos == "top_left" else "top_left")),
    CounterfactualProperty(
        "row_group_label", "nested row headers in columns of their own against parent labels on rows of their own "
        "with the rows below them indented (the indent row format)", STANDARD, _row_group_label_toggle),
    CounterfactualProperty(
        "borders", "a table without rules against one with ruled cells (the HTML and image renderings show them; "
        "CSV and Markdown cannot, so there the two prompts are one)", frozenset(),
        lambda b: b.with_(borders=not b.layout.borders)),
)

PROPERTY_NAMES = tuple(p.name for p in PROPERTIES)


def counterfactual_property(name: str) -> CounterfactualProperty:
    for p in PROPERTIES:
        if p.name == name:
            return p
    raise KeyError(f"no layout counterfactual property {name!r}; known: {', '.join(PROPERTY_NAMES)}")


def counterfactual_table_id(base_id: str, prop: str, candidate: int = 1) -> str:
    """`<base>--cf--<property>`; a property's further candidate layouts `...-2`, `...-3` (at most one is kept)."""
    return f"{base_id}{COUNTERFACTUAL_MARK}{prop}" + (f"-{candidate}" if candidate > 1 else "")


def set_id(base_id: str) -> str:
    return f"{base_id}{SET_SUFFIX}"


# ------------------------------------------------------------------ the bases and their toggles

INSTANCE_COLUMNS = ("table_id", "domain", "template_name", "variant_id", "replica", "value_name", "value_is_integer",
                    "agg_fun", "agg_name", "shuffle", "col_depth", "row_depth", "name_pos", "col_agg_pos",
                    "row_agg_pos", "row_format", "borders", "row_attributes", "row_attribute_codes",
                    "row_attribute_levels", "col_attributes", "col_attribute_codes", "col_attribute_levels")
COUNTERFACTUAL_COLUMNS = ("original_table_id", "counterfactual_set_id", "counterfactual_property",
                          "counterfactual_candidate", "counterfactual_may_change")


def choose_bases(instances: pd.DataFrame, n_sets: int, seed: int) -> list[str]:
    """`n_sets` table ids of int_table_instances: a seeded order per domain, the domains taken in turn (so a
    small number of sets still spans the domains), the same tables at any number of sets (a prefix)."""
    if n_sets <= 0 or instances.empty:
        return []
    by_domain: dict[str, list[str]] = {}
    for domain, table_id in sorted(zip(instances["domain"], instances["table_id"])):
        by_domain.setdefault(str(domain), []).append(str(table_id))
    queues = {d: sorted(ids, key=lambda t: (stable_int(seed, "layout-counterfactual", t), t))
              for d, ids in by_domain.items()}
    out: list[str] = []
    while len(out) < n_sets and any(queues.values()):
        for d in sorted(queues):
            if queues[d] and len(out) < n_sets:
                out.append(queues[d].pop(0))
    return out


def base_of(row: dict) -> Base:
    codes = tuple(row["row_attribute_codes"]) + tuple(row["col_attribute_codes"])
    return Base(str(row["table_id"]), tuple(map(str, codes)),
                Layout(int(row["row_depth"]), str(row["name_pos"]), str(row["col_agg_pos"]), str(row["row_agg_pos"]),
                       str(row["row_format"]), bool(row["borders"])))


def laid_out(row: dict, layout: Layout) -> dict:
    """`row` (an int_table_instances row) with `layout`'s split and options."""
    s = layout.row_depth
    out = dict(row)
    for key, kind in (("attributes", str), ("attribute_codes", str), ("attribute_levels", int)):
        both = [kind(v) for v in list(row[f"row_{key}"]) + list(row[f"col_{key}"])]
        out[f"row_{key}"], out[f"col_{key}"] = both[:s], both[s:]
    out.update(row_depth=s, col_depth=len(out["col_attributes"]), name_pos=layout.name_pos,
               col_agg_pos=layout.col_agg_pos, row_agg_pos=layout.row_agg_pos, row_format=layout.row_format,
               borders=layout.borders)
    return out


# int_table_instances' column types (those of the sampled rows), then the set's columns
CANDIDATE_SCHEMA = pa.schema([ROWS_SCHEMA.field(c) for c in INSTANCE_COLUMNS] + [
    ("original_table_id", pa.string()), ("counterfactual_set_id", pa.string()),
    ("counterfactual_property", pa.string()), ("counterfactual_candidate", pa.int32()),
    ("counterfactual_may_change", pa.list_(pa.string()))])


def candidate_toggles(instances: pd.DataFrame, n_sets: int, seed: int,
                      properties: Sequence[CounterfactualProperty] = PROPERTIES) -> pa.Table:
    """The toggles of the first `n_sets` bases (`choose_bases`): per base and property the base's layout with that
    property changed, as int_table_instances rows (INSTANCE_COLUMNS) with COUNTERFACTUAL_COLUMNS."""
    chosen = choose_bases(instances, n_sets, seed)
    wanted = set(chosen)
    rows = {str(r["table_id"]): r for r in instances.to_dict("records") if str(r["table_id"]) in wanted}
    out = []
    for base_id in chosen:
        row = rows[base_id]
        base = base_of(row)
        for prop in properties:
            for k, layout in enumerate(prop.toggles(base), start=1):
                toggled = laid_out(row, layout)
                toggled.update(table_id=counterfactual_table_id(base_id, prop.name, k), original_table_id=base_id,
                               counterfactual_set_id=set_id(base_id), counterfactual_property=prop.name,
                               counterfactual_candidate=k, counterfactual_may_change=sorted(prop.may_change))
                out.append(toggled)
    out.sort(key=lambda r: r["table_id"])
    return pa.Table.from_pylist(out, schema=CANDIDATE_SCHEMA)
