"""The leaderboard: each model's mean of every metric with a 95 % interval from a bootstrap that resamples tables.

Questions on one table share its layout and values, so they are not independent draws: the bootstrap
draws whole tables with replacement (a table's questions go in or out together) and takes the
percentile interval of the resampled means. Each row's resamples come from a generator seeded by its
key (model, format, inference mode, scoring mode), so a row's interval does not depend on which other
models are in the build, and every metric of one model is resampled alike.
"""
from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from .selection import left_out_mask

LEADERBOARD_KEYS = ["model_name", "backend", "table_format", "inference_mode", "scoring_mode"]
LEADERBOARD_COLUMNS = [*LEADERBOARD_KEYS, "metric", "mean", "ci_low", "ci_high", "n_questions", "n_tables",
                       "n_left_out"]
N_RESAMPLES = 1000
LEVEL = 0.95


def _generator(key: tuple, seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(map(str, key)).encode("utf-8"))])


def table_bootstrap_interval(values: np.ndarray, tables: np.ndarray, weights: np.ndarray,
                             level: float = LEVEL) -> tuple[float, float]:
    """Percentile interval of the mean of ``values`` over resampled tables; ``weights``: (resamples x tables)
    counts of each table (codes ``tables`` index its columns)."""
    sums = np.bincount(tables, weights=values, minlength=weights.shape[1])
    counts = np.bincount(tables, minlength=weights.shape[1]).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):  # a resample without this metric's tables
        means = (weights @ sums) / (weights @ counts)
    tail = (1.0 - level) / 2.0 * 100.0
    lo, hi = np.nanpercentile(means, [tail, 100.0 - tail])
    return float(lo), float(hi)


def leaderboard(scores: pd.DataFrame, variants: pd.DataFrame | None = None, n_resamples: int = N_RESAMPLES,
                seed: int = 0) -> pd.DataFrame:
    """One row per model x backend x table format x inference mode x scoring mode x metric of long ``scores``
    (eval_scores): the mean over the model's scored questions (paper mode leaves out what it leaves out,
    counted in n_left_out), its table-clustered bootstrap interval, and the questions and tables it is over.
    ``variants`` (question_id, variant): where given, only the original questions count (an obfuscated twin
    is another question of the same table, analysis_obfuscation_gap compares the two)."""
    if variants is not None and len(scores):
        keep = set(variants.loc[variants["variant"] != "original", "question_id"])
        scores = scores[~scores["question_id"].isin(keep)]
    if scores.empty:
        return _empty()
    out_of = left_out_mask(scores)
    left_out = scores[out_of].groupby([*LEADERBOARD_KEYS, "metric"], dropna=False).size()
    kept = scores[~out_of]
    rows = []
    for key, one in kept.groupby(LEADERBOARD_KEYS, sort=True, dropna=False):
        codes, uniques = pd.factorize(one["table_id"], sort=True)
        rng = _generator(key, seed)
        weights = rng.multinomial(len(uniques), np.full(len(uniques), 1.0 / len(uniques)), size=n_resamples)
        for metric, m in one.groupby("metric", sort=True):
            idx = one.index.get_indexer(m.index)
            values = m["value"].to_numpy(float)
            lo, hi = table_bootstrap_interval(values, codes[idx], weights)
            rows.append({**dict(zip(LEADERBOARD_KEYS, key)), "metric": metric, "mean": float(values.mean()),
                         "ci_low": lo, "ci_high": hi, "n_questions": int(m["question_id"].nunique()),
                         "n_tables": int(m["table_id"].nunique()),
                         "n_left_out": int(left_out.get((*key, metric), 0))})
    return pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS).astype(
        {"n_questions": "int64", "n_tables": "int64", "n_left_out": "int64"})


def _empty() -> pd.DataFrame:
    floats = {"mean", "ci_low", "ci_high"}
    ints = {"n_questions", "n_tables", "n_left_out"}
    return pd.DataFrame({c: pd.Series(dtype="float64" if c in floats else "int64" if c in ints else "str")
                         for c in LEADERBOARD_COLUMNS})
