"""Which toggles enter the benchmark: those that differ from their base in their property and nothing else.

The flags are the build's own, computed from the laid-out header trees like every table's (int_hct_properties for
the bases, int_counterfactual_hct_properties for the toggles): a toggle is kept when its property's flag differs
from its base's (for `borders`, its rules do) and every other flag that differs is one the property may change
(`CounterfactualProperty.may_change`). Whether the toggle has the property is read off its flags, so each pair
(base, toggle) has one layout without the property and one with it. A toggle showing a sum or average printed
like one of its data cells is left out too: the base's values are drawn to differ from every sum and average of
its own header groups, and a split elsewhere makes other groups.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional

import pandas as pd

from ..release.properties import TABLE_PROPERTY_COLUMNS
from .layouts import counterfactual_property


@dataclass(frozen=True)
class Rejected:
    table_id: str
    counterfactual_property: str
    reason: str


def toggle_verdict(prop_name: str, base: Mapping[str, Optional[bool]], toggle: Mapping[str, Optional[bool]],
                   borders: tuple[bool, bool]) -> Optional[str]:
    """Why a toggle (its flags by column, and the (base, toggle) borders) is not a counterfactual of its base for
    `prop_name`, or None."""
    prop = counterfactual_property(prop_name)
    if prop.flag is None:  # the rules: no flag may change
        if borders[0] == borders[1]:
            return "borders unchanged"
    elif base[prop.flag] is None or toggle[prop.flag] is None or base[prop.flag] == toggle[prop.flag]:
        return f"{prop.flag} unchanged ({base[prop.flag]})"
    changed = sorted(c for c in TABLE_PROPERTY_COLUMNS
                     if c != prop.flag and c not in prop.may_change and base[c] != toggle[c])
    if changed:
        return "also changes " + ", ".join(changed)
    return None


def colliding_layouts(cells: pd.DataFrame, layouts: pd.DataFrame) -> list[str]:
    """The layouts (of `layouts`: table_id, agg_fun) summing or averaging whose cells (`cells`: table_id, role,
    text of the data and aggregate cells) show an aggregate printed like one of their data cells."""
    adds = set(layouts.loc[layouts["agg_fun"].isin(["sum", "avg"]), "table_id"].astype(str))
    aggregates = cells.loc[cells["role"] == "aggregate", ["table_id", "text"]].drop_duplicates()
    data = cells.loc[cells["role"] == "data", ["table_id", "text"]].drop_duplicates()
    both = aggregates.merge(data, on=["table_id", "text"])
    return sorted(set(both["table_id"].astype(str)) & adds)


def _flags(frame: pd.DataFrame) -> dict[str, dict[str, Optional[bool]]]:
    return {str(r["table_id"]): {c: (None if pd.isna(r[c]) else bool(r[c])) for c in TABLE_PROPERTY_COLUMNS}
            for r in frame.to_dict("records")}


def kept_toggles(candidates: pd.DataFrame, toggle_flags: pd.DataFrame, bases: pd.DataFrame, base_flags: pd.DataFrame,
                 colliding_tables=()) -> tuple[pd.DataFrame, list[Rejected]]:
    """The rows of `candidates` (candidate_toggles) that are kept, at most one per base and property (its first
    candidate that passes), with `counterfactual_has_property` (whether the toggle has its property; its base then
    has not), and why each candidate tried and not kept was not.

    `toggle_flags` / `base_flags`: table_id and the 23 flags of the toggles / of their bases; `bases`: table_id
    and borders of the bases; `colliding_tables`: toggles showing an aggregate equal to one of their data cells."""
    toggles, originals = _flags(toggle_flags), _flags(base_flags)
    base_borders = {str(t): bool(b) for t, b in zip(bases["table_id"], bases["borders"])}
    colliding = set(map(str, colliding_tables))
    has: dict[str, bool] = {}
    rejected: list[Rejected] = []
    done: set[tuple[str, str]] = set()  # (base, property) with a toggle kept: its later candidates are not tried
    for row in sorted(candidates.to_dict("records"), key=lambda r: (str(r["original_table_id"]),
                                                                    str(r["counterfactual_property"]),
                                                                    int(r["counterfactual_candidate"]))):
        table_id, base_id, prop = str(row["table_id"]), str(row["original_table_id"]), str(row["counterfactual_property"])
        if (base_id, prop) in done:
            continue
        if table_id not in toggles or base_id not in originals:
            reason = f"no flags for {table_id if table_id not in toggles else base_id}"
        elif table_id in colliding:
            reason = "an aggregate equals a data cell"
        else:
            reason = toggle_verdict(prop, originals[base_id], toggles[table_id],
                                    (base_borders[base_id], bool(row["borders"])))
        if reason is not None:
            rejected.append(Rejected(table_id, prop, reason))
            continue
        flag = counterfactual_property(prop).flag
        has[table_id] = bool(row["borders"]) if flag is None else bool(toggles[table_id][flag])
        done.add((base_id, prop))
    kept = candidates[candidates["table_id"].astype(str).isin(has)].reset_index(drop=True)
    return kept.assign(counterfactual_has_property=[has[str(t)] for t in kept["table_id"]]), rejected
