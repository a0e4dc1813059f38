"""analysis_seed_variance: how much of a score is the benchmark's own sampling, measured across seeds.

The benchmark regenerates from its seed: another seed draws other tables, values and questions of the same
configuration. Each seed is built in a database of its own (one build per database), and each build records its
eval_leaderboard in the prediction store under its fingerprint (evaluation_py.running.results); the fingerprint of
the same configuration under another seed is computable (generator_py.dbt_glue.build_config.fingerprint_for_seed),
so a build finds the other seeds' leaderboards there. Per model x table format x inference mode x scoring mode x
metric: the mean over the seeds, the standard deviation between seeds (the benchmark's sampling noise, which no
fixed benchmark can show), and beside it the within-build interval of eval_leaderboard (a bootstrap over one
build's tables), as its mean half-width over the seeds and that half-width over 1.96 (the standard error it
implies).

How many seeds a difference needs: a model's mean over k seeds has a standard error of sd / sqrt(k), so two models'
means over k seeds each tell apart a difference d (two-sided 5 %, power 80 %) when
k >= 2 * (1.96 + 0.84)^2 * sd^2 / d^2 (about 15.7 sd^2 / d^2; `seeds_for_difference`); `detectable_difference` is
that d for the seeds given. Both treat the two models' seed means as independent, which holds when each is built on
seeds of its own; on the same seeds the paired difference varies less, so these are upper bounds.
"""
from __future__ import annotations

import math
from typing import Iterable, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa

Z_TWO_SIDED_5 = 1.959963984540054
Z_POWER_80 = 0.8416212335729143
GROUP = ["model_name", "backend", "table_format", "inference_mode", "scoring_mode", "metric"]
SEED_VARIANCE_COLUMNS = [*GROUP, "n_seeds", "seeds", "mean", "sd_between_seeds", "min", "max",
                         "within_build_half_width", "within_build_se", "sd_to_within_se", "detectable_difference"]
SEED_VARIANCE_SCHEMA = pa.schema([(c, pa.string()) for c in GROUP] + [("n_seeds", pa.int64()),
                                                                       ("seeds", pa.list_(pa.int64()))]
                                 + [(c, pa.float64()) for c in SEED_VARIANCE_COLUMNS[len(GROUP) + 2:]])


def seeds_for_difference(sd: float, difference: float) -> int:
    """Seeds per model for two models' seed means to tell `difference` apart (5 % two-sided, 80 % power)."""
    if not (difference > 0) or not np.isfinite(sd):
        raise ValueError(f"a difference > 0 and a finite sd are needed, got {difference!r} and {sd!r}")
    return max(2, math.ceil(2 * (Z_TWO_SIDED_5 + Z_POWER_80) ** 2 * sd ** 2 / difference ** 2))


def detectable_difference(sd: float, n_seeds: int) -> float:
    """The smallest difference two models' means over `n_seeds` seeds each tell apart (5 % two-sided, 80 % power)."""
    return float((Z_TWO_SIDED_5 + Z_POWER_80) * sd * math.sqrt(2 / n_seeds))


class MissingSeeds(ValueError):
    """Seeds whose builds have no leaderboard in the prediction store."""


def seed_leaderboards(recorded: pd.DataFrame, fingerprint_of_seed: Mapping[int, str]) -> pd.DataFrame:
    """The recorded leaderboard rows (a `fingerprint` column, results.ResultsIndex.leaderboards) of each seed, with a
    `seed` column; MissingSeeds naming each seed (and its fingerprint) that has none."""
    seed_of = {fp: s for s, fp in fingerprint_of_seed.items()}
    present = set(recorded["fingerprint"]) if len(recorded) else set()
    missing = [s for s, fp in fingerprint_of_seed.items() if fp not in present]
    if missing:
        named = ", ".join(f"{s} (fingerprint {fingerprint_of_seed[s]})" for s in missing)
        raise MissingSeeds(f"var seed_variance_seeds: no leaderboard in the prediction store for seed(s) {named}; "
                           "build them first (`hctqa seeds SEED ...`, the same vars and eval_cache_dir)")
    return recorded.assign(seed=recorded["fingerprint"].map(seed_of))


def as_arrow(frame: pd.DataFrame) -> pa.Table:
    """The mart's rows with its column types, also when there are none (a build without the var)."""
    return pa.Table.from_pandas(frame[SEED_VARIANCE_COLUMNS], schema=SEED_VARIANCE_SCHEMA, preserve_index=False)


def seed_variance(leaderboards: pd.DataFrame, seeds: Iterable[int]) -> pd.DataFrame:
    """`analysis_seed_variance` from the leaderboard rows of several seeds (`seed_leaderboards`): one row per group
    every one of `seeds` has a finite mean for."""
    seeds = list(seeds)
    if leaderboards.empty:
        return pd.DataFrame(columns=SEED_VARIANCE_COLUMNS)
    lb = leaderboards[leaderboards["seed"].isin(seeds)].copy()
    for c in ("mean", "ci_low", "ci_high"):
        lb[c] = pd.to_numeric(lb[c], errors="coerce")
    lb = lb[np.isfinite(lb["mean"])]
    rows = []
    for key, g in lb.groupby(GROUP, sort=True):
        g = g.drop_duplicates("seed")
        if set(g["seed"]) != set(seeds):
            continue  # a model, format or mode not evaluated on every seed
        means = g["mean"].to_numpy(dtype=float)
        sd = float(np.std(means - means[0], ddof=1))  # shifted: equal means give exactly 0
        half = float(((g["ci_high"] - g["ci_low"]) / 2).mean())
        se = half / Z_TWO_SIDED_5
        rows.append((*key, len(g), sorted(int(s) for s in g["seed"]), float(means.mean()), sd, float(means.min()),
                     float(means.max()), half, se, sd / se if se > 0 else np.nan,
                     detectable_difference(sd, len(g))))
    out = pd.DataFrame(rows, columns=SEED_VARIANCE_COLUMNS)
    out["n_seeds"] = out["n_seeds"].astype("int64")
    for c in SEED_VARIANCE_COLUMNS[SEED_VARIANCE_COLUMNS.index("mean"):]:
        out[c] = out[c].astype("float64")
    for c in GROUP:
        out[c] = out[c].astype(object)
    return out


# ------------------------------------------------------------------ the report's figure

CAPTION = ("One row per model / table format / inference mode ({mode} scoring, {metric}): the dot is its mean over "
           "the builds of {n} seeds and the thick bar the range of the seeds' means (the benchmark drawn again); the "
           "thin bar is the 95% interval one build gives on average (a bootstrap over its tables). A seed range "
           "wider than the interval means one build's interval understates how much the score moves when the "
           "benchmark is regenerated.")


def plot_seed_variance(variance: pd.DataFrame, out_dir, metric: str = "f1", scoring_mode: str = "strict",
                       baselines=(), filename: str = "seed_variance.png"):
    """Per model x format x mode: mean over seeds, the seeds' range and the mean within-build interval; None when
    the frame has no row of the metric."""
    from .plots import _new_figure, _save, wrapped

    df = variance[(variance["metric"] == metric) & (variance["scoring_mode"] == scoring_mode)]
    if df.empty:
        return None
    df = df.sort_values(["mean", "model_name"], ascending=[False, True])
    labels = [f"{r.model_name} ({r.table_format}, {r.inference_mode})" for r in df.itertuples()]
    fig = _new_figure(7.0 + 0.05 * max(len(s) for s in labels), 1.4 + 0.4 * len(df), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(len(df))
    mean = df["mean"].to_numpy(float)
    half = df["within_build_half_width"].to_numpy(float)
    grey = np.array([m in set(baselines) for m in df["model_name"]])
    ax.hlines(y, df["min"].to_numpy(float), df["max"].to_numpy(float), colors=np.where(grey, "grey", "tab:blue"),
              linewidth=6, alpha=0.5, label="range of the seeds' means")
    ax.errorbar(mean, y + 0.18, xerr=half, fmt="none", ecolor="black", capsize=3, linewidth=1,
                label="mean within-build 95% interval")
    ax.plot(mean, y, "o", color="black", markersize=4, label="mean over seeds")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(len(df) - 0.5, -0.5)
    ax.set_xlabel(f"mean {metric}", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(wrapped(f"The benchmark's own sampling noise: {metric} across {int(df['n_seeds'].max())} seeds "
                         f"({scoring_mode})", fig.get_figwidth()), fontsize=10)
    return _save(fig, out_dir, filename)
