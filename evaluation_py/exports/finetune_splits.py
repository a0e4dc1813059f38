"""Train / validation / test splits for fine-tuning, by table: each table's split is a seeded function
of its ORIGINAL table id alone.

Keyed on the original (a variant of a table, e.g. its text-obfuscated copy, names its original in
`original_table_id`), so a variant always lands in its original's split, no table is in two splits,
and a table keeps its split whatever else the build contains (another scale, another domain, a new
question family). Fractions are the var `finetune_split_fractions` (default 80 / 10 / 10); a table
draws a uniform number from (seed, original id) and takes the split whose share covers it, so the
shares are those fractions in expectation, not to the table. No dbt imports.
"""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from generator_py.core.rng import stable_int

SPLITS = ("train", "validation", "test")
DEFAULT_FRACTIONS = (0.8, 0.1, 0.1)
FRACTIONS_VAR = "finetune_split_fractions"
# The column of benchmark_tables naming a variant's original table (absent, or NULL: the table is an original).
ORIGINAL_COLUMN = "original_table_id"


def parse_fractions(raw: Any) -> tuple[float, float, float]:
    """The var's value (None: the default) as three shares of train, validation, test summing to 1."""
    if raw is None:
        return DEFAULT_FRACTIONS
    where = f"var {FRACTIONS_VAR} {raw!r}"
    if isinstance(raw, dict):
        unknown = sorted(set(map(str, raw)) - set(SPLITS))
        if unknown:
            raise ValueError(f"{where}: unknown split(s) {', '.join(unknown)}; splits are {', '.join(SPLITS)}")
        raw = [raw.get(s, 0) for s in SPLITS]
    if not isinstance(raw, (list, tuple)) or len(raw) != 3:
        raise ValueError(f"{where}: must be three shares [train, validation, test], e.g. [0.8, 0.1, 0.1]")
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0 for v in raw):
        raise ValueError(f"{where}: every share must be a number >= 0")
    if not math.isclose(sum(raw), 1.0, abs_tol=1e-9):
        raise ValueError(f"{where}: the shares sum to {sum(raw):g}, not 1")
    if raw[0] <= 0:
        raise ValueError(f"{where}: the train share must be above 0")
    return tuple(float(v) for v in raw)


def split_of(original_table_id: str, seed: int, fractions: tuple[float, float, float] = DEFAULT_FRACTIONS) -> str:
    """The split of every table whose original is `original_table_id`."""
    u = stable_int(seed, "finetune-split", original_table_id) / 2.0 ** 64
    cumulative = 0.0
    for split, share in zip(SPLITS, fractions):
        cumulative += share
        if u < cumulative:
            return split
    return next(s for s, share in zip(reversed(SPLITS), reversed(fractions)) if share > 0)


def original_ids(tables: pd.DataFrame) -> pd.Series:
    """Each table's original: `original_table_id` where the table is a variant, else its own id."""
    own = tables["table_id"].astype(str)
    if ORIGINAL_COLUMN not in tables.columns:
        return own
    original = tables[ORIGINAL_COLUMN]
    return original.where(original.notna() & (original.astype(str) != ""), own).astype(str)


def table_splits(tables: pd.DataFrame, seed: int, fractions: tuple[float, float, float] = DEFAULT_FRACTIONS
                 ) -> pd.DataFrame:
    """One row per table of `tables` (benchmark_tables rows): table_id, original_table_id, split."""
    if tables["table_id"].duplicated().any():
        dup = tables.loc[tables["table_id"].duplicated(), "table_id"].iloc[0]
        raise ValueError(f"benchmark_tables: table_id {dup!r} appears twice")
    original = original_ids(tables)
    unknown = sorted(set(original) - set(tables["table_id"].astype(str)))
    if unknown:
        raise ValueError(f"benchmark_tables.{ORIGINAL_COLUMN}: {unknown[0]!r} is not a table of the benchmark")
    split_by_original = {o: split_of(o, seed, fractions) for o in original.unique()}
    out = pd.DataFrame({"table_id": tables["table_id"].astype(str).to_numpy(), "original_table_id": original.to_numpy()})
    out["split"] = out["original_table_id"].map(split_by_original)
    return out.sort_values("table_id", kind="stable").reset_index(drop=True)
