"""Test data for the two-table and OLAP families (suite beyond): seed-domain tables with a year attribute, each
with a partner showing the same measure in other years, and the row-group aggregates a drill-down starts from."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd

from generator_py.tables.relational import RelationalTable, ShownAggregate

from .toy_tables import SEEDS

AGG = {"sum": "sum", "avg": "mean", "min": "min", "max": "max"}


def beyond_nl_rows(seed_frames: dict) -> pd.DataFrame:
    """seeds/nl_templates.csv and nl_templates_beyond.csv as one frame."""
    beyond = pd.read_csv(SEEDS / "nl_templates_beyond.csv", dtype=str, keep_default_na=False)
    return pd.concat([seed_frames["nl_templates"], beyond], ignore_index=True)


def has_year(t: RelationalTable) -> bool:
    return any(a.name == "Year" for a in t.attributes) and t.frame["Year"].notna().all()


def tables_with_year(toy_tables, domain: str, n: int, seed: int = 11) -> list[RelationalTable]:
    """The first `n` toy tables of `domain` that show a year on every row."""
    out = []
    for i in range(200):
        t = toy_tables.table(domain, i, seed=seed, max_codes=3)
        if has_year(t):
            out.append(with_group_aggregates(t))
            if len(out) == n:
                return out
    raise AssertionError(f"no {n} toy tables with a year in {domain}")


def period_partner(t: RelationalTable, table_id: str) -> RelationalTable:
    """`t` in the years after its own (every year label moved past its last one), other values: the same
    measure in another period."""
    frame = t.frame.copy()
    years = sorted(frame["Year"].unique())
    shift = int(years[-1]) - int(years[0]) + 1
    frame["Year"] = [str(int(y) + shift) for y in frame["Year"]]
    frame["Value"] = [round(v * 1.5 + 0.37, 2) for v in frame["Value"]]  # distinct values stay distinct
    return replace(t, table_id=table_id, frame=frame, shown_aggregates=())


def with_group_aggregates(t: RelationalTable) -> RelationalTable:
    """`t` showing its aggregate of each label of its first row attribute at every column path (what a drill-down
    starts from), when the row axis has a second attribute to drill to."""
    rows = [a.name for a in t.row_attributes]
    cols = [a.name for a in t.col_attributes]
    if len(rows) < 2:
        return t
    shown = []
    for (label, *path), group in t.frame.groupby([rows[0]] + cols, sort=True, dropna=False):
        if label is None or any(x is None or x != x for x in path):
            continue
        value = float(round(getattr(group["Value"], AGG[t.agg_fun])(), 2))
        shown.append(ShownAggregate((label,), tuple(path), value))
    return replace(t, shown_aggregates=tuple(shown))
