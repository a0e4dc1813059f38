"""Selecting the score rows an analysis averages over, and the common model order."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from evaluation_py.scoring.extraction import DEFAULT_INFERENCE_MODE
from evaluation_py.scoring.scores import mean_scores

from .schema import reference_backends

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
    if "left_out" not in df.columns or "scoring_mode" not in df.columns:
        return np.zeros(len(df), dtype=bool)
    lo = df["left_out"].fillna(False).astype(bool).to_numpy()
    return lo & (df["scoring_mode"] == "paper").to_numpy()


def with_inference_mode(scores: pd.DataFrame) -> pd.DataFrame:
    """``scores`` with an ``inference_mode`` column (``direct`` where the frame has none)."""
    if "inference_mode" in scores.columns:
        return scores
    return scores.assign(inference_mode=DEFAULT_INFERENCE_MODE)


def select_scores(
    scores: pd.DataFrame,
    scoring_mode: str | Iterable[str] | None = None,
    table_format: str | Iterable[str] | None = PRIMARY,
    exclude_left_out: bool = True,
    metric: str | Iterable[str] | None = None,
) -> pd.DataFrame:
    """Rows of long ``scores`` (one per prediction, scoring mode and metric) that averages are taken over.

    ``scoring_mode``: one mode, several, or None for all; ``metric`` likewise. ``table_format``:
    'primary' (per model its primary format, see :func:`primary_formats`), a format name / list, or
    None for every format. In paper mode, rows with ``left_out`` are excluded unless
    ``exclude_left_out`` is false (then :func:`evaluation_py.scoring.scores.mean_scores` counts them apart).
    """
    df = with_inference_mode(scores)
    mask = np.ones(len(df), dtype=bool)
    modes = _as_list(scoring_mode)
    if modes is not None and "scoring_mode" in df.columns:
        mask &= df["scoring_mode"].isin(modes).to_numpy()
    wanted = _as_list(metric)
    if wanted is not None and "metric" in df.columns:
        mask &= df["metric"].isin(wanted).to_numpy()
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
    """Rows answered by a reference backend (the oracle: the ground truth itself)."""
    if "backend" not in scores.columns:
        return np.zeros(len(scores), dtype=bool)
    return scores["backend"].isin(reference_backends()).fillna(False).to_numpy(dtype=bool)


def models_under_test(scores: pd.DataFrame) -> pd.DataFrame:
    """The rows of real models: everything but the oracle, which fits and correlations
    across models must not see (its constant 1.0 would be half of every pooled effect)."""
    return scores.loc[~is_oracle(scores)]


def model_order(
    scores: pd.DataFrame,
    scoring_mode: str = "strict",
    metric: str = "f1",
    table_format: str | None = PRIMARY,
) -> list[str]:
    """Model names by decreasing mean ``metric`` (ties by name): the order of every plot.

    Falls back to all scoring modes when ``scoring_mode`` has no rows. Models without any
    score row are not listed."""
    if scores.empty:
        return []
    sel = select_scores(scores, scoring_mode=scoring_mode, table_format=table_format, metric=metric)
    if sel.empty:
        sel = select_scores(scores, scoring_mode=None, table_format=table_format, metric=metric)
    means = mean_scores(sel, ["model_name"]).set_index("model_name")["value"]
    rows = sorted(means.items(), key=lambda kv: (-(kv[1] if np.isfinite(kv[1]) else -np.inf), str(kv[0])))
    return [str(m) for m, _ in rows]
