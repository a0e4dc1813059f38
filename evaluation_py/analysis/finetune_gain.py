"""What fine-tuning buys (the paper's RQ4, Table VI): per base model and test set, each fine-tuned model's
mean against its base's, on the same questions.

An entry says what it is with `base_model` (the entry it was fine-tuned from) and `finetune_set` (real,
synthetic or real_synthetic: the export's set it was trained on; configuration.model_metadata). A test
set is a source of questions (real, synthetic). For a base and its fine-tuned models, per table format,
inference mode, scoring mode, metric and test set, the means are over the questions every one of them
answered (none left out): the base's row (finetune_set `none`) and each fine-tuned model's compare like
with like, and `gain` is a model's mean minus the base's. A fine-tuned model whose base has no scores on a
test set gives no row there (`missing_bases` names it).
"""
from __future__ import annotations

import pandas as pd

from .coerce import to_flag

BASE_SET = "none"  # the finetune_set of the base model's own row
KEYS = ["table_format", "inference_mode", "scoring_mode", "metric", "source"]
FINETUNE_GAIN_COLUMNS = ["base_model", "finetune_set", "model_name", "table_format", "inference_mode", "scoring_mode",
                         "metric", "test_set", "n_questions", "value", "base_value", "gain"]
CAPTION = ("Fine-tuned models against their base (the paper's Table VI): {metric} per test set, each fine-tuned "
           "model's mean minus its base's over the questions both answered ({mode} scoring).")


def tuned_models(metadata: pd.DataFrame) -> pd.DataFrame:
    """The fine-tuned entries: model_name, base_model, finetune_set (metadata rows with both keys)."""
    if metadata.empty or "base_model" not in metadata.columns:
        return pd.DataFrame(columns=["model_name", "base_model", "finetune_set"])
    tuned = metadata[metadata["base_model"].notna()]
    return tuned[["model_name", "base_model", "finetune_set"]].reset_index(drop=True)


def finetune_gain(scores: pd.DataFrame, metadata: pd.DataFrame) -> pd.DataFrame:
    """One row per base x model (the base itself included) x format x mode x scoring mode x metric x test set."""
    tuned = tuned_models(metadata)
    if tuned.empty or scores.empty:
        return _empty()
    from ..exports.finetune_sets import FINETUNE_SETS

    kept = scores[~to_flag(scores["left_out"])] if "left_out" in scores.columns else scores
    set_rank = {s: i for i, s in enumerate([BASE_SET, *FINETUNE_SETS])}
    rows = []
    for base, group in tuned.groupby("base_model", sort=True):
        set_of = {base: BASE_SET, **dict(zip(group["model_name"], group["finetune_set"]))}
        members = kept[kept["model_name"].isin(set(set_of))]
        for key, g in members.groupby(KEYS, sort=True, dropna=False):
            per = g.pivot_table(index="question_id", columns="model_name", values="value", aggfunc="first")
            if base not in per.columns or len(per.columns) < 2:
                continue
            common = per.dropna()  # the questions every one of them answered
            if common.empty:
                continue
            base_value = float(common[base].mean())
            for model in per.columns:
                value = float(common[model].mean())
                rows.append({"base_model": base, "finetune_set": set_of[model], "model_name": model,
                             **dict(zip(KEYS, key)), "n_questions": len(common), "value": value,
                             "base_value": base_value, "gain": value - base_value})
    if not rows:
        return _empty()
    out = pd.DataFrame(rows).rename(columns={"source": "test_set"})
    out["_rank"] = out["finetune_set"].map(set_rank)
    out = out.sort_values(["base_model", "table_format", "inference_mode", "scoring_mode", "metric", "test_set",
                           "_rank", "model_name"], kind="stable")
    return out[FINETUNE_GAIN_COLUMNS].reset_index(drop=True)


def missing_bases(scores: pd.DataFrame, metadata: pd.DataFrame) -> list[str]:
    """The fine-tuned models whose base has no scores at all: no gain can be shown for them."""
    tuned = tuned_models(metadata)
    scored = set(scores["model_name"]) if len(scores) else set()
    return sorted(m for m, b in zip(tuned["model_name"], tuned["base_model"]) if m in scored and b not in scored)


def table_vi(gain: pd.DataFrame, metric: str = "f1") -> pd.DataFrame:
    """The paper's layout: one row per base model x fine-tuning set (its model), a column of `metric` per test
    set, and the gain on each (the base's row: its own mean, gain 0)."""
    g = gain[gain["metric"] == metric]
    if g.empty:
        return pd.DataFrame(columns=["base_model", "finetune_set", "model_name", "table_format", "inference_mode"])
    keys = ["base_model", "finetune_set", "model_name", "table_format", "inference_mode"]
    wide = g.pivot_table(index=keys, columns="test_set", values=["value", "gain"], aggfunc="first", sort=False)
    wide.columns = [f"{t} {metric}" if v == "value" else f"{t} gain" for v, t in wide.columns]
    sets = sorted(g["test_set"].unique())
    order = [c for t in sets for c in (f"{t} {metric}", f"{t} gain") if c in wide.columns]
    return wide[order].reset_index()


def _empty() -> pd.DataFrame:
    dtypes = {"n_questions": "int64", "value": "float64", "base_value": "float64", "gain": "float64"}
    return pd.DataFrame({c: pd.Series(dtype=dtypes.get(c, "str")) for c in FINETUNE_GAIN_COLUMNS})
