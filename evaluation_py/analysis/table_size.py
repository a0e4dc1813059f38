"""Scores by table size: per model x inference mode x scoring mode x metric, the mean of the metric in
fixed bins of two size measures, with a 95 % interval from a bootstrap resampling tables.

- `cells`: the table's grid positions (benchmark_tables.n_cells), the same axis for every mode;
- `prompt_tokens`: the prompt tokens the backend reported for the prediction (eval_predictions; an
  episode's turns summed), the length of what the model read in that mode. Backends that report none
  (the baselines) have no rows for it.

TReB finds the text modes lose accuracy as tables grow and ICoT does not (its prompt shows the table's
structure, not its cells): the rows of one model and metric, mode by mode along the bins, show it or not.
Each model on its primary table format, the original questions only (the twins: analysis_obfuscation_gap).
The interval resamples the bin's tables (a cluster bootstrap, as eval_leaderboard), drawn once per model x
mode x bin from the build's seed and that key, so a row does not depend on which other rows the build has.
The bins are fixed, so two builds' rows compare bin for bin; a bin without scored predictions has no row.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .leaderboard import N_BOOT, _generator, resample_weights
from .selection import PRIMARY, left_out_mask, select_scores

# Lower edges of each measure's bins; the last bin is open-ended.
SIZE_BINS = {
    "cells": (0, 50, 100, 200, 400, 800),
    "prompt_tokens": (0, 500, 1000, 2000, 4000, 8000),
}
SIZE_MEASURES = tuple(SIZE_BINS)
GROUP = ["model_name", "inference_mode", "scoring_mode", "metric"]
BY_SIZE_COLUMNS = [*GROUP, "size_measure", "size_bin", "bin_low", "bin_high", "value", "ci_low", "ci_high", "n",
                   "n_tables", "n_left_out"]
LEVEL = 0.95
_INTS = ("bin_low", "n", "n_tables", "n_left_out")
_FLOATS = ("value", "ci_low", "ci_high")


def bin_label(edges: tuple[int, ...], i: int) -> str:
    """`low-high` (both inclusive) or, for the last bin, `low+`."""
    return f"{edges[i]}+" if i == len(edges) - 1 else f"{edges[i]}-{edges[i + 1] - 1}"


def size_bins(sizes: pd.Series, measure: str) -> pd.Series:
    """The bin index of each size (NaN where the size is missing or below the first edge)."""
    edges = np.asarray(SIZE_BINS[measure], dtype=float)
    values = pd.to_numeric(sizes, errors="coerce").to_numpy(dtype=float)
    index = np.searchsorted(edges, values, side="right") - 1
    return pd.Series(np.where(np.isfinite(values) & (index >= 0), index, np.nan), index=sizes.index)


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="int64" if c in _INTS else "Int64" if c == "bin_high" else
                                      "float64" if c in _FLOATS else "object") for c in BY_SIZE_COLUMNS})


def _bin_rows(cell: pd.DataFrame, model_name, mode, measure: str, label: str, low: int, high, seed: int,
              n_boot: int) -> list[tuple]:
    """The rows of one model x mode x bin, one per scoring mode and metric. The bin's tables are resampled
    once (drawn from the seed and the bin's key) and every metric's mean is taken over the same resamples:
    a resample's mean is its tables' summed scores over their scored predictions."""
    codes, tables = pd.factorize(cell["table_id"])
    weights = resample_weights(len(tables), n_boot, _generator(seed, model_name, mode, measure, label))
    tail = (1 - LEVEL) / 2 * 100
    out = []
    for (scoring_mode, metric), g in cell.groupby(["scoring_mode", "metric"], sort=True):
        kept = ~g["_left_out"].to_numpy()
        if not kept.any():
            continue
        at = codes[cell.index.get_indexer(g.index)][kept]
        values = g["_value"].to_numpy()[kept]
        sums = np.bincount(at, weights=values, minlength=len(tables))
        counts = np.bincount(at, minlength=len(tables)).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = (weights @ sums) / (weights @ counts)  # NaN: a resample of tables none of which is scored
        ci_low, ci_high = np.nanpercentile(boot, [tail, 100 - tail])
        out.append((model_name, mode, scoring_mode, metric, measure, label, low, high, float(values.mean()),
                    float(ci_low), float(ci_high), int(kept.sum()), int(np.unique(at).size),
                    int((~kept).sum())))
    return out


def scores_by_table_size(scores: pd.DataFrame, tables: pd.DataFrame, predictions: pd.DataFrame | None, seed: int,
                         questions: pd.DataFrame | None = None, n_boot: int = N_BOOT) -> pd.DataFrame:
    """`analysis_mode_by_table_size` from eval_scores rows, benchmark_tables (`table_id`, `n_cells`) and
    eval_predictions (`cache_key`, `prompt_tokens`; None: no prompt_tokens rows); `questions` (`question_id`,
    `variant`) keeps the originals."""
    sel = select_scores(scores, None, PRIMARY, exclude_left_out=False)
    if questions is not None and "variant" in questions.columns:
        original = questions.loc[questions["variant"].fillna("original") == "original", "question_id"]
        sel = sel[sel["question_id"].isin(set(original))]
    if sel.empty:
        return _empty()
    cells = tables.drop_duplicates("table_id").set_index("table_id")["n_cells"]
    tokens = (pd.Series(dtype="float64") if predictions is None else
              predictions.drop_duplicates("cache_key").set_index("cache_key")["prompt_tokens"])
    sel = sel.assign(_left_out=left_out_mask(sel), _value=sel["value"].astype(float)).reset_index(drop=True)
    size_of = {"cells": sel["table_id"].map(cells),
               "prompt_tokens": sel["cache_key"].map(tokens) if "cache_key" in sel.columns else
               pd.Series(np.nan, index=sel.index)}
    rows = []
    for measure in SIZE_MEASURES:
        edges = SIZE_BINS[measure]
        binned = sel.assign(_bin=size_bins(size_of[measure], measure)).dropna(subset=["_bin"])
        for (model_name, mode, b), cell in binned.groupby(["model_name", "inference_mode", "_bin"], sort=True):
            b = int(b)
            label = bin_label(edges, b)
            rows += _bin_rows(cell, model_name, mode, measure, label, edges[b],
                              edges[b + 1] - 1 if b + 1 < len(edges) else None, seed, n_boot)
    if not rows:
        return _empty()
    out = pd.DataFrame(rows, columns=BY_SIZE_COLUMNS)
    for c in _INTS:
        out[c] = out[c].astype("int64")
    out["bin_high"] = out["bin_high"].astype("Int64")
    for c in _FLOATS:
        out[c] = out[c].astype("float64")
    return out.sort_values([*GROUP, "size_measure", "bin_low"]).reset_index(drop=True)
