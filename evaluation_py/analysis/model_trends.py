"""Scores against what the entries say about their models (the paper's RQ7 and RQ2): per model family, how
the score grows with the model's size (`params_b`, billions of parameters) and how it changed from one
release of the family to the next (`release_date`).

Each model contributes its mean on its primary table format (selection.select_scores, mean_scores), per
inference mode, scoring mode and metric. Metadata an entry does not give stays unknown: a model without
`family` is in no family, a model without `params_b` (or `release_date`) is named in
`models_without_size` (`models_without_date`) of its family's rows and enters no slope (no change).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _sps

from evaluation_py.scoring.scores import mean_scores

from .selection import PRIMARY, select_scores

KEYS = ["family", "inference_mode", "scoring_mode", "metric"]
SIZE_COLUMNS = [*KEYS, "n_models", "models", "min_params_b", "max_params_b", "slope_per_b", "slope_ci_low",
                "slope_ci_high", "models_without_size", "note"]
TIME_COLUMNS = [*KEYS, "model_name", "release_date", "value", "previous_model", "previous_release_date",
                "previous_value", "change", "models_without_date"]
CONFIDENCE = 0.95


def model_means(scores: pd.DataFrame, metadata: pd.DataFrame) -> pd.DataFrame:
    """Per model (with a family) x mode x scoring mode x metric: its mean on its primary format, and its
    family, params_b, release_date from `metadata` (entry_metadata rows)."""
    cols = ["model_name", "inference_mode", "scoring_mode", "metric", "value", "n", "family", "params_b",
            "release_date"]
    if scores.empty or metadata.empty:
        return pd.DataFrame(columns=cols)
    known = metadata[metadata["family"].notna()][["model_name", "family", "params_b", "release_date"]]
    sel = select_scores(scores[scores["model_name"].isin(set(known["model_name"]))], None, PRIMARY)
    if sel.empty:
        return pd.DataFrame(columns=cols)
    means = mean_scores(sel, ["model_name", "inference_mode", "scoring_mode"])
    return means.merge(known, on="model_name", how="inner")[cols]


def _names(models) -> str:
    return ", ".join(sorted(models))


def scores_by_model_size(scores: pd.DataFrame, metadata: pd.DataFrame) -> pd.DataFrame:
    """One row per family x mode x scoring mode x metric: the least-squares slope of the models' means on their
    size (per billion parameters) and its 95 % interval (t, n - 2 degrees of freedom; none for 2 sizes)."""
    means = model_means(scores, metadata)
    rows = []
    for key, g in means.groupby(KEYS, sort=True):
        sized = g[g["params_b"].notna() & g["value"].notna()]
        row = dict(zip(KEYS, key), n_models=len(sized), models=_names(sized["model_name"]),
                   min_params_b=float(sized["params_b"].min()) if len(sized) else np.nan,
                   max_params_b=float(sized["params_b"].max()) if len(sized) else np.nan,
                   slope_per_b=np.nan, slope_ci_low=np.nan, slope_ci_high=np.nan,
                   models_without_size=_names(g.loc[g["params_b"].isna(), "model_name"]) or None, note=None)
        x, y = sized["params_b"].to_numpy(float), sized["value"].to_numpy(float)
        if len(np.unique(x)) < 2:
            row["note"] = "fewer than two sizes given (params_b): no slope"
        else:
            sxx = float(((x - x.mean()) ** 2).sum())
            slope = float(((x - x.mean()) * (y - y.mean())).sum() / sxx)
            row["slope_per_b"] = slope
            if len(x) > 2:
                residual = y - (y.mean() + slope * (x - x.mean()))
                se = float(np.sqrt((residual ** 2).sum() / (len(x) - 2) / sxx))
                half = float(_sps.t.ppf(0.5 + CONFIDENCE / 2, len(x) - 2)) * se
                row["slope_ci_low"], row["slope_ci_high"] = slope - half, slope + half
            else:
                row["note"] = "two models: the slope has no interval"
        rows.append(row)
    return _frame(rows, SIZE_COLUMNS, {"n_models": "int64", "min_params_b": "float64", "max_params_b": "float64",
                                       "slope_per_b": "float64", "slope_ci_low": "float64", "slope_ci_high": "float64"})


def scores_over_time(scores: pd.DataFrame, metadata: pd.DataFrame) -> pd.DataFrame:
    """One row per model with a release date x mode x scoring mode x metric, in release order within its family:
    its mean, the previous release's (NULL for the first) and the change between them."""
    means = model_means(scores, metadata)
    rows = []
    for key, g in means.groupby(KEYS, sort=True):
        dated = g[g["release_date"].notna()].sort_values(["release_date", "model_name"], kind="stable")
        undated = _names(g.loc[g["release_date"].isna(), "model_name"]) or None
        previous = None
        for r in dated.itertuples(index=False):
            rows.append(dict(zip(KEYS, key), model_name=r.model_name, release_date=r.release_date, value=r.value,
                             previous_model=None if previous is None else previous.model_name,
                             previous_release_date=None if previous is None else previous.release_date,
                             previous_value=np.nan if previous is None else previous.value,
                             change=np.nan if previous is None else r.value - previous.value,
                             models_without_date=undated))
            previous = r
    return _frame(rows, TIME_COLUMNS, {"value": "float64", "previous_value": "float64", "change": "float64"})


def _frame(rows: list[dict], columns: list[str], dtypes: dict) -> pd.DataFrame:
    if not rows:
        return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, "str")) for c in columns})
    return pd.DataFrame(rows)[columns].astype(dtypes)
