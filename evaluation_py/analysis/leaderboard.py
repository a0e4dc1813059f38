"""The leaderboard and the pairwise model comparisons, with intervals from a bootstrap that resamples tables.

Questions on one table are not independent (they read the same cells), so every interval here
resamples whole tables with replacement (a cluster bootstrap): a resample's mean is the sum of the
drawn tables' scores over the number of their scored questions. 95 % percentile intervals, `n_boot`
resamples drawn from the build's seed, so the same build gives the same intervals. The metrics of one
model in one format, mode and scoring mode share their resamples (the same tables drawn for each metric).

Leaderboard: per table format x inference mode x scoring mode x metric, the models are ranked on one
agreed set of questions: those every model in that group has a score for (the original questions;
the obfuscated twins have their own comparison, analysis_obfuscation_gap). Paper mode leaves some out
per model (`n_left_out`); the mean is over the rest.

Comparisons: every pair of models under test (the baselines are not), on the questions both have a
score for that neither left out: the mean paired difference (a minus b), its interval, a two-sided
p value from the table-clustered standard error (t with tables - 1 degrees of freedom) and the p
values BH-adjusted across the pairs of each format x mode x scoring mode x metric.
"""
from __future__ import annotations

import itertools
import zlib

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from ..configuration.model_specs import BASELINE_NAMES
from .stats import bh_adjust

BASELINES = BASELINE_NAMES
N_BOOT = 1000
GROUP = ["table_format", "inference_mode", "scoring_mode", "metric"]
LEADERBOARD_COLUMNS = ["model_name", "backend", *GROUP, "mean", "ci_low", "ci_high", "n_questions", "n_tables",
                       "n_left_out"]
COMPARISON_COLUMNS = ["model_a", "model_b", *GROUP, "n_questions", "n_tables", "mean_difference", "ci_low", "ci_high",
                      "p_value", "p_value_adjusted"]
SCORE_INPUT_COLUMNS = ("model_name", "backend", "table_format", "inference_mode", "scoring_mode", "metric",
                       "question_id", "table_id", "value", "left_out")


def _generator(seed: int, *key) -> np.random.Generator:
    """Resamples drawn from the seed and a key (a row's, or the group's whose rows share them): an interval does
    not depend on which other rows the build has."""
    return np.random.default_rng([seed, zlib.crc32("\x1f".join(map(str, key)).encode("utf-8"))])


def resample_weights(n_tables: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """How often each table is drawn in each resample (n_boot x n_tables): n_tables draws with replacement
    per resample, counted (a multinomial draw, made from uniform integers: a tenth of numpy's multinomial).
    The counts are floats: a product with a float vector is then one BLAS call, where numpy casts an integer
    matrix anew for each product (twice the time of the draw), to the same values."""
    draws = rng.integers(0, n_tables, size=(n_boot, n_tables))
    draws += np.arange(n_boot)[:, None] * n_tables
    return np.bincount(draws.ravel(), minlength=n_boot * n_tables).reshape(n_boot, n_tables).astype(np.float64)


def cluster_interval(values: np.ndarray, clusters: np.ndarray, n_boot: int, rng: np.random.Generator | None,
                     level: float = 0.95, weights: np.ndarray | None = None) -> tuple[float, float, float]:
    """(mean, low, high) of `values`, resampling whole clusters. `weights`: the resamples' counts of the clusters
    (`resample_weights`' matrix, the clusters in the order they first come), for resamples shared between
    intervals; by default they are drawn from `rng`."""
    codes, uniques = pd.factorize(clusters)
    sums = np.bincount(codes, weights=values, minlength=len(uniques))
    counts = np.bincount(codes, minlength=len(uniques)).astype(float)
    mean = float(values.mean())
    w = weights if weights is not None else resample_weights(len(uniques), n_boot, rng)
    boot = (w @ sums) / (w @ counts)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(boot, [tail, 100 - tail])
    return mean, float(low), float(high)


def clustered_p_value(differences: np.ndarray, clusters: np.ndarray) -> float:
    """Two-sided p of mean difference 0, with the cluster-robust standard error (t, clusters - 1 df)."""
    codes, uniques = pd.factorize(clusters)
    g, n = len(uniques), len(differences)
    mean = differences.mean()
    resid = np.bincount(codes, weights=differences - mean, minlength=g)
    if g < 2:
        return float("nan")
    se = np.sqrt(g / (g - 1) * np.sum(resid ** 2)) / n
    if se == 0:
        return 1.0 if mean == 0 else 0.0
    return float(2 * scipy_stats.t.sf(abs(mean / se), df=g - 1))


def _scored(scores: pd.DataFrame) -> pd.DataFrame:
    missing = [c for c in SCORE_INPUT_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"eval_scores rows lack column(s) {', '.join(missing)}")
    out = scores[list(SCORE_INPUT_COLUMNS)].copy()
    out["left_out"] = out["left_out"].astype(bool)
    out["value"] = out["value"].astype(float)
    return out


def leaderboard_of_scores(scores: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The leaderboard of analysis frames that may lack `inference_mode` or `left_out` (the report's inputs
    when no eval_leaderboard mart is given): direct mode, nothing left out."""
    from .selection import with_inference_mode

    scores = with_inference_mode(scores)
    if "left_out" not in scores.columns:
        scores = scores.assign(left_out=False)
    return leaderboard(scores, seed)


def leaderboard(scores: pd.DataFrame, seed: int, n_boot: int = N_BOOT) -> pd.DataFrame:
    """`eval_leaderboard` from eval_scores rows of the original questions.

    Rows are grouped in plain Python (a frame split per group costs more than the bootstrap): groups and
    models in sorted order, rows without a key value left out, as a pandas groupby would."""
    scores = _scored(scores)
    keys = list(zip(*(scores[c].tolist() for c in GROUP)))
    models, questions = scores["model_name"].tolist(), scores["question_id"].tolist()
    tables, backends = scores["table_id"].to_numpy(), scores["backend"].tolist()
    values, left_out = scores["value"].to_numpy(float), scores["left_out"].to_numpy(bool)
    groups: dict[tuple, dict] = {}
    for i, (key, model) in enumerate(zip(keys, models)):
        if model is None or any(k is None or k != k for k in key) or model != model:
            continue
        groups.setdefault(key, {}).setdefault(model, []).append(i)
    rows = []
    shared: dict[tuple, np.ndarray] = {}  # the resamples of a model's group, by the number of tables drawn from
    metric_at = GROUP.index("metric")
    for key in sorted(groups):
        per_model = groups[key]
        agreed = set.intersection(*({questions[i] for i in rows_of} for rows_of in per_model.values()))
        for model_name in sorted(per_model):
            at = np.array([i for i in per_model[model_name] if questions[i] in agreed], dtype=np.int64)
            kept = at[~left_out[at]]
            if len(kept):
                # every metric of the model's group is resampled alike: drawn from its key but the metric
                draw = (model_name, *key[:metric_at], *key[metric_at + 1:])
                n_tables = len(pd.factorize(tables[kept])[1])
                if (draw, n_tables) not in shared:
                    shared[draw, n_tables] = resample_weights(n_tables, n_boot, _generator(seed, *draw))
                mean, low, high = cluster_interval(values[kept], tables[kept], n_boot, None,
                                                   weights=shared[draw, n_tables])
            else:
                mean = low = high = float("nan")
            rows.append((model_name, backends[per_model[model_name][0]], *key, mean, low, high, int(len(kept)),
                         int(len(set(tables[kept].tolist()))), int(left_out[at].sum())))
    out = pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS)
    return _typed(out, ["n_questions", "n_tables", "n_left_out"])


def comparisons(scores: pd.DataFrame, seed: int, n_boot: int = N_BOOT) -> pd.DataFrame:
    """`eval_model_comparisons` from eval_scores rows of the original questions."""
    scores = _scored(scores)
    scores = scores[~scores["model_name"].isin(BASELINES)]
    rows, families = [], []
    for key, group in scores.groupby(GROUP, sort=True):
        kept = group[~group["left_out"]]
        by_model = {m: g.drop_duplicates("question_id").set_index("question_id") for m, g in kept.groupby("model_name")}
        first = len(rows)
        for a, b in itertools.combinations(sorted(by_model), 2):
            both = by_model[a].index.intersection(by_model[b].index)
            if len(both) == 0:
                continue
            d = (by_model[a].loc[both, "value"] - by_model[b].loc[both, "value"]).to_numpy()
            tables = by_model[a].loc[both, "table_id"].to_numpy()
            rng = _generator(seed, a, b, *key)
            mean, low, high = cluster_interval(d, tables, n_boot, rng)
            rows.append([a, b, *key, int(len(both)), int(pd.unique(tables).size), mean, low, high,
                         clustered_p_value(d, tables), np.nan])
        families.append((first, len(rows)))
    for start, end in families:  # BH across the pairs of one format x mode x scoring mode x metric
        adjusted = bh_adjust([r[-2] for r in rows[start:end]])
        for r, p in zip(rows[start:end], adjusted):
            r[-1] = float(p)
    out = pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
    return _typed(out, ["n_questions", "n_tables"])


def _typed(out: pd.DataFrame, ints: list[str]) -> pd.DataFrame:
    for c in out.columns:
        if c in ints:
            out[c] = out[c].astype("int64")
        elif c in ("mean", "ci_low", "ci_high", "mean_difference", "p_value", "p_value_adjusted"):
            out[c] = out[c].astype("float64")
        else:
            out[c] = out[c].astype(object)
    return out
