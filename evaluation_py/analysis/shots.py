"""Zero-shot against one-shot prompts (the HCT-QA paper's Table VIII): each entry's means with its `shots`
(0 or 1; prompting.one_shot), so two entries of one model id, one per shots value, stand side by side.

From eval_scores and the build's entries (entry_metadata: a model evaluated by an earlier build only has
no shots known and is left out). Means per model id x entry x shots x format x mode x scoring mode x metric
(mean_scores, left-out rows counted apart)."""
from __future__ import annotations

import pandas as pd

from evaluation_py.scoring.scores import mean_scores

from .selection import select_scores

KEYS = ["model", "model_name", "shots", "table_format", "inference_mode", "scoring_mode"]
SHOTS_COLUMNS = [*KEYS, "metric", "value", "n", "n_left_out"]


def scores_by_shots(scores: pd.DataFrame, metadata: pd.DataFrame) -> pd.DataFrame:
    """Rows only where some entry of the build has `shots: 1` (else there is nothing to compare)."""
    if scores.empty or metadata.empty or not (metadata["shots"] == 1).any():
        return _empty()
    shots = dict(zip(metadata["model_name"], metadata["shots"]))
    sel = select_scores(scores[scores["model_name"].isin(set(shots))], None, None, exclude_left_out=False)
    if sel.empty:
        return _empty()
    sel = sel.assign(shots=sel["model_name"].map(shots).astype("int64"))
    out = mean_scores(sel, KEYS)
    return out[SHOTS_COLUMNS].astype({"shots": "int64", "n": "int64", "n_left_out": "int64"}).reset_index(drop=True)


def shots_table(by_shots: pd.DataFrame, metric: str = "recall") -> pd.DataFrame:
    """Table VIII's layout: per model id x format x mode, `metric` at 0 shots and at 1 shot (the entries named)."""
    g = by_shots[by_shots["metric"] == metric]
    keys = ["model", "table_format", "inference_mode"]
    if g.empty:
        return pd.DataFrame(columns=[*keys, f"0-shot {metric}", f"1-shot {metric}"])
    value = g.pivot_table(index=keys, columns="shots", values="value", aggfunc="first", sort=True)
    names = g.groupby(keys, sort=True)["model_name"].agg(lambda s: ", ".join(sorted(set(s))))
    out = pd.DataFrame({f"{k}-shot {metric}": value[k] if k in value.columns else float("nan") for k in (0, 1)})
    out["entries"] = names
    return out.reset_index()


def _empty() -> pd.DataFrame:
    dtypes = {"shots": "int64", "value": "float64", "n": "int64", "n_left_out": "int64"}
    return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, "str")) for c in SHOTS_COLUMNS})
