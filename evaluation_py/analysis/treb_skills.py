"""Scores by TReB skill and subtask (TReB's per-subtask table, on HCTs): per model x inference mode x scoring
mode x skill x subtask, the mean of the subtask's own metric with a 95 % interval from a bootstrap that
resamples tables (questions on one table are not independent; leaderboard.cluster_interval).

Beside the subtask rows, one row per skill (treb_subtask NULL, metric SKILL_METRIC): the mean of its subtasks'
means, each subtask weighted alike (TReB averages a skill over its subtasks), with an interval from the same
resampling of tables (each resample's subtask means averaged). These skill rows are what `mode_gains_by_skill`
compares across modes (TReB's Figure 2).

Which skills, subtasks and metrics there are is read from the questions (benchmark_questions' treb_skill,
treb_subtask and treb_metric, which their families declare), never from a list here. Each model on its
primary table format; the original questions only (the obfuscated twins have their own comparison).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .leaderboard import N_BOOT, _generator, resample_weights, cluster_interval
from .selection import PRIMARY, left_out_mask, select_scores

QUESTION_COLUMNS = ("question_id", "treb_skill", "treb_subtask", "treb_metric")
KEYS = ["model_name", "inference_mode", "scoring_mode", "treb_skill", "treb_subtask"]
COLUMNS = [*KEYS, "metric", "mean", "ci_low", "ci_high", "n_questions", "n_tables", "n_left_out", "n_subtasks"]
_INTS = ("n_questions", "n_tables", "n_left_out", "n_subtasks")
# the metric of a skill row: each subtask's own (treb_metric), their means averaged
SKILL_METRIC = "treb_metric"


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="int64" if c in _INTS else "float64" if c in ("mean", "ci_low", "ci_high")
                                      else "string") for c in COLUMNS})


def scores_by_treb_skill(scores: pd.DataFrame, questions: pd.DataFrame, seed: int, n_boot: int = N_BOOT,
                         table_format=PRIMARY) -> pd.DataFrame:
    """`analysis_scores_by_treb_skill` from long eval_scores rows and benchmark_questions rows."""
    missing = [c for c in QUESTION_COLUMNS if c not in questions.columns]
    if missing:
        raise ValueError(f"benchmark_questions rows lack column(s) {', '.join(missing)}")
    q = questions
    if "variant" in q.columns:
        q = q[q["variant"].fillna("original") == "original"]
    q = q[q["treb_subtask"].notna()].drop_duplicates("question_id").set_index("question_id")
    sel = select_scores(scores, None, table_format, exclude_left_out=False)
    known = set(q.index)  # a set: isin over an Arrow-backed column converts every value of q first
    sel = sel[[x in known for x in sel["question_id"].tolist()]]
    if sel.empty:
        return _empty()
    sel = sel.assign(**{c: sel["question_id"].map(q[c]).to_numpy() for c in QUESTION_COLUMNS[1:]})
    sel = sel[sel["metric"] == sel["treb_metric"]]  # each subtask by its own metric
    sel = sel.assign(_left_out=left_out_mask(sel))
    rows = []
    for key, g in sel.groupby(KEYS, sort=True):
        kept = g[~g["_left_out"]]
        metric = g["metric"].iloc[0]
        if len(kept):
            rng = _generator(seed, *key, metric)
            mean, low, high = cluster_interval(kept["value"].to_numpy(float), kept["table_id"].to_numpy(), n_boot, rng)
        else:
            mean = low = high = np.nan
        rows.append((*key, metric, mean, low, high, int(len(kept)), int(kept["table_id"].nunique()),
                     int(g["_left_out"].sum()), 1))
    for key, g in sel.groupby(KEYS[:-1], sort=True):
        rows.append((*key, None, SKILL_METRIC, *_skill_interval(g, seed, key, n_boot)))
    if not rows:
        return _empty()
    out = pd.DataFrame(rows, columns=COLUMNS)
    out = out.sort_values(KEYS, na_position="first", kind="stable").reset_index(drop=True)
    for c in _INTS:
        out[c] = out[c].astype("int64")
    return out


def _skill_interval(g: pd.DataFrame, seed: int, key: tuple, n_boot: int) -> tuple:
    """(mean, ci_low, ci_high, n_questions, n_tables, n_left_out, n_subtasks) of one skill: the mean of its
    subtasks' means, and the same from each resample of the skill's tables (a subtask none of whose tables a
    resample draws is left out of that resample's mean)."""
    kept = g[~g["_left_out"]]
    subtasks = sorted(kept["treb_subtask"].unique())
    counts = (int(len(kept)), int(kept["table_id"].nunique()), int(g["_left_out"].sum()), len(subtasks))
    if not subtasks:
        return (np.nan, np.nan, np.nan, *counts)
    codes, uniques = pd.factorize(kept["table_id"].to_numpy())
    w = resample_weights(len(uniques), n_boot, _generator(seed, *key, SKILL_METRIC))
    means, boot = [], []
    for s in subtasks:
        mine = (kept["treb_subtask"] == s).to_numpy()
        values = kept["value"].to_numpy(float)[mine]
        means.append(values.mean())
        sums = np.bincount(codes[mine], weights=values, minlength=len(uniques))
        n = np.bincount(codes[mine], minlength=len(uniques)).astype(float)
        drawn = w @ n
        with np.errstate(invalid="ignore", divide="ignore"):
            boot.append(np.where(drawn > 0, (w @ sums) / np.where(drawn > 0, drawn, 1), np.nan))
    low, high = np.nanpercentile(np.nanmean(np.vstack(boot), axis=0), [2.5, 97.5])
    return (float(np.mean(means)), float(low), float(high), *counts)
