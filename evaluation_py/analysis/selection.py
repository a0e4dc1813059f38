"""Selecting the score rows an analysis averages over, and the common model order."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from .coerce import to_number
from .schema import METRICS, ORACLE_BACKEND

PRIMARY = "primary"


def _as_list(value) -> list | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return list(value)


def primary_formats(scores: pd.DataFrame) -> dict[str, str]:
    """Per model_name the table format its main results use: 'html' when the model has
    HTML rows, else its most frequent format (ties broken alphabetically)."""
    if scores.empty or "table_format" not in scores.columns:
        return {}
    counts = scores.groupby(["model_name", "table_format"], observed=True, sort=True).size()
    out: dict[str, str] = {}
    for model, sub in counts.groupby(level=0, sort=True):
        fmts = {fmt: int(n) for (_, fmt), n in sub.items()}
        if "html" in fmts:
            out[model] = "html"
        else:
            out[model] = sorted(fmts.items(), key=lambda kv: (-kv[1], str(kv[0])))[0][0]
    return out


def left_out_mask(df: pd.DataFrame) -> np.ndarray:
    """Rows a mean leaves out: ``left_out`` rows of paper mode (strict mode scores every row)."""
    if "left_out" not in df.columns or "mode" not in df.columns:
        return np.zeros(len(df), dtype=bool)
    lo = df["left_out"].fillna(False).astype(bool).to_numpy()
    return lo & (df["mode"] == "paper").to_numpy()


def select_scores(
    scores: pd.DataFrame,
    mode: str | Iterable[str] | None = None,
    table_format: str | Iterable[str] | None = PRIMARY,
    exclude_left_out: bool = True,
) -> pd.DataFrame:
    """Rows of ``scores`` that averages are taken over.

    ``mode``: one mode, several, or None for all. ``table_format``: 'primary' (per
    model its primary format, see :func:`primary_formats`), a format name / list, or
    None for every format. In paper mode, rows with ``left_out`` are excluded unless
    ``exclude_left_out`` is false (then :func:`mean_metrics` counts them apart).
    """
    df = scores
    mask = np.ones(len(df), dtype=bool)
    modes = _as_list(mode)
    if modes is not None and "mode" in df.columns:
        mask &= df["mode"].isin(modes).to_numpy()
    if exclude_left_out:
        mask &= ~left_out_mask(df)
    if table_format is not None and "table_format" in df.columns:
        if table_format == PRIMARY:
            prim = primary_formats(df)
            if prim:
                mask &= (df["table_format"] == df["model_name"].map(prim)).to_numpy()
        else:
            mask &= df["table_format"].isin(_as_list(table_format)).to_numpy()
    return df.loc[mask]


def is_oracle(scores: pd.DataFrame) -> np.ndarray:
    """Rows answered by the oracle backend (the ground truth itself)."""
    if "backend" not in scores.columns:
        return np.zeros(len(scores), dtype=bool)
    return (scores["backend"] == ORACLE_BACKEND).fillna(False).to_numpy(dtype=bool)


def models_under_test(scores: pd.DataFrame) -> pd.DataFrame:
    """The rows of real models: everything but the oracle, which fits and correlations
    across models must not see (its constant 1.0 would be half of every pooled effect)."""
    return scores.loc[~is_oracle(scores)]


def mean_metrics(df: pd.DataFrame, keys: list[str], metrics: Iterable[str] = METRICS) -> pd.DataFrame:
    """Mean of each metric per group, over the predictions scored; groups sorted by ``keys``.

    ``n`` is the number of predictions scored (the rows the means are over) and
    ``n_left_out`` the number paper mode left out (always 0 in strict mode), the same
    two counts as ``eval_summary``. ``df`` may hold left-out rows (see
    :func:`select_scores` with ``exclude_left_out=False``); they enter only ``n_left_out``.
    """
    metrics = [m for m in metrics if m in df.columns]
    if df.empty:
        return pd.DataFrame(columns=[*keys, *metrics, "n", "n_left_out"])
    lo = left_out_mask(df)
    work = df[keys].copy()
    for m in metrics:
        work[m] = pd.Series(np.where(lo, np.nan, to_number(df[m])), index=df.index)
    work["n"] = (~lo).astype("int64")
    work["n_left_out"] = lo.astype("int64")
    g = work.groupby(keys, observed=True, sort=True, dropna=False)
    out = g[metrics].mean()
    out[["n", "n_left_out"]] = g[["n", "n_left_out"]].sum()
    out = out.reset_index()
    out["n"] = out["n"].astype("int64")
    out["n_left_out"] = out["n_left_out"].astype("int64")
    return out


def model_order(
    scores: pd.DataFrame,
    mode: str = "strict",
    metric: str = "f1",
    table_format: str | None = PRIMARY,
) -> list[str]:
    """Model names by decreasing mean ``metric`` (ties by name): the order of every plot.

    Falls back to all modes when ``mode`` has no rows. Models without any score row
    are not listed."""
    if scores.empty:
        return []
    sel = select_scores(scores, mode=mode, table_format=table_format)
    if sel.empty:
        sel = select_scores(scores, mode=None, table_format=table_format)
    means = sel.groupby("model_name", observed=True)[metric].mean()
    rows = sorted(means.items(), key=lambda kv: (-(kv[1] if np.isfinite(kv[1]) else -np.inf), str(kv[0])))
    return [str(m) for m, _ in rows]
