"""Summaries of the choice answers (eval_choice_predictions), each long over the two scorings.

`scoring` is `text` (the letter read from the answer; an abstention is wrong) or `logprobs` (the
first token's A-vs-B mass; only answers whose status is `scored`). An item counts in a summary of a
scoring when both its orders are scored that way, so per-order and both-order accuracies are over
the same items.

Random guessing answers an item right in both orders with probability 1/4 (independent orders), so
`p_value_vs_chance` is the one-sided binomial test of `n_right_both` of `n_items` against 1/4 (TabIS
Table 7 compares one order's accuracy with 1/2).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis.regression import property_regression
from ..analysis.schema import reference_backends

SCORINGS = ("text", "logprobs")
CHANCE_BOTH = 0.25
ALPHA = 0.05
PROBE_SUBSETS = ("tsu_pcl", "tsu_prl", "tsu_pll", "tsu_rcl", "tsu_rrl", "tsu_rll")
SUMMARY_KEYS = ["model_name", "backend", "scoring", "subset", "distractor_strategy", "content_variant", "option_form"]
ACCURACY_COLUMNS = [*SUMMARY_KEYS, "n_items", "accuracy_ab", "accuracy_ba", "accuracy_mean", "accuracy_both",
                    "n_right_both", "share_answer_a", "share_abstained", "p_value_vs_chance", "above_chance"]
GAP_COLUMNS = ["model_name", "backend", "scoring", "n_pairs", "accuracy_b_tis", "accuracy_m_tis", "gap_both",
               "accuracy_mean_b_tis", "accuracy_mean_m_tis", "gap_mean"]
PROBE_COLUMNS = ["model_name", "backend", "scoring", "subset", "content_variant", "target_row", "target_col",
                 "n_items", "accuracy_mean", "accuracy_both"]


def item_answers(preds: pd.DataFrame) -> pd.DataFrame:
    """One row per model x item x scoring whose both orders are scored: the letters and rightness
    of each order (`letter_ab`, `right_ab`, `letter_ba`, `right_ba`) and `right_both`."""
    keep = ["model_name", "backend", "item_id", "subset", "distractor_strategy", "content_variant", "option_form",
            "table_id", "source_question_id", "target_row", "target_col"]
    if "option_form" not in preds.columns:
        preds = preds.assign(option_form="answer")
    frames = []
    for scoring in SCORINGS:
        ok = preds["answered"].astype(bool)
        if scoring == "logprobs":
            ok &= preds["logprobs_status"] == "scored"
        letter_col, right_col = ("text_letter", "text_correct") if scoring == "text" else ("logprob_letter", "logprob_correct")
        sub = preds.loc[ok, [*keep, "option_order", letter_col, right_col]].rename(
            columns={letter_col: "letter", right_col: "right"})
        if sub.empty:
            continue
        ab = sub[sub["option_order"] == "ab"].drop(columns="option_order")
        ba = sub.loc[sub["option_order"] == "ba", ["model_name", "item_id", "letter", "right"]]
        both = ab.merge(ba, on=["model_name", "item_id"], how="inner", suffixes=("_ab", "_ba"))
        if both.empty:
            continue
        both["right_ab"] = both["right_ab"].fillna(False).astype(bool)
        both["right_ba"] = both["right_ba"].fillna(False).astype(bool)
        both["right_both"] = both["right_ab"] & both["right_ba"]
        frames.append(both.assign(scoring=scoring))
    cols = [*keep, "scoring", "letter_ab", "right_ab", "letter_ba", "right_ba", "right_both"]
    if not frames:
        return pd.DataFrame(columns=cols)
    return pd.concat(frames, ignore_index=True)[cols]


def binomial_p_above(k: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """One-sided P(X >= k), X ~ Binomial(n, p)."""
    from scipy.stats import binom

    return np.where(n > 0, binom.sf(np.asarray(k) - 1, np.asarray(n), p), np.nan)


def choice_accuracy(preds: pd.DataFrame) -> pd.DataFrame:
    """Per model x scoring x subset x distractor strategy x content variant (analysis_choice_accuracy)."""
    items = item_answers(preds)
    if items.empty:
        return pd.DataFrame(columns=ACCURACY_COLUMNS)
    letters = pd.concat([items["letter_ab"], items["letter_ba"]], ignore_index=True)
    long = pd.DataFrame({k: pd.concat([items[k], items[k]], ignore_index=True) for k in SUMMARY_KEYS})
    long["is_a"] = (letters == "A").astype(float)
    long["abstained"] = letters.isna().astype(float)
    long["given"] = letters.notna().astype(float)
    g = items.groupby(SUMMARY_KEYS, sort=True, dropna=False)
    out = g.agg(n_items=("item_id", "size"), accuracy_ab=("right_ab", "mean"), accuracy_ba=("right_ba", "mean"),
                accuracy_both=("right_both", "mean"), n_right_both=("right_both", "sum")).reset_index()
    out["accuracy_mean"] = (out["accuracy_ab"] + out["accuracy_ba"]) / 2
    lg = long.groupby(SUMMARY_KEYS, sort=True, dropna=False).agg(a=("is_a", "sum"), given=("given", "sum"),
                                                                  abst=("abstained", "mean")).reset_index()
    out = out.merge(lg, on=SUMMARY_KEYS, how="left")
    out["share_answer_a"] = np.where(out["given"] > 0, out["a"] / out["given"].where(out["given"] > 0, 1), np.nan)
    out["share_abstained"] = out["abst"]
    out["n_right_both"] = out["n_right_both"].astype("int64")
    out["p_value_vs_chance"] = binomial_p_above(out["n_right_both"].to_numpy(), out["n_items"].to_numpy(), CHANCE_BOTH)
    out["above_chance"] = out["p_value_vs_chance"] < ALPHA
    return out[ACCURACY_COLUMNS]


def robustness_gap(preds: pd.DataFrame) -> pd.DataFrame:
    """b_tis - m_tis per model x scoring, over the source questions with both items scored (TabIS Figure 5)."""
    items = item_answers(preds)
    # m_tis items state answers: pair them with the answer-form b_tis items, not the statement twins
    items = items[items["subset"].isin(["b_tis", "m_tis"]) & (items["option_form"] == "answer")]
    rows = []
    for (model, backend, scoring), g in items.groupby(["model_name", "backend", "scoring"], sort=True):
        b = g[g["subset"] == "b_tis"].set_index("source_question_id")
        m = g[g["subset"] == "m_tis"].set_index("source_question_id")
        common = b.index.intersection(m.index)
        if len(common) == 0:
            continue
        b, m = b.loc[common], m.loc[common]
        mean_b = float((b["right_ab"].mean() + b["right_ba"].mean()) / 2)
        mean_m = float((m["right_ab"].mean() + m["right_ba"].mean()) / 2)
        rows.append({"model_name": model, "backend": backend, "scoring": scoring, "n_pairs": len(common),
                     "accuracy_b_tis": float(b["right_both"].mean()), "accuracy_m_tis": float(m["right_both"].mean()),
                     "gap_both": float(b["right_both"].mean() - m["right_both"].mean()),
                     "accuracy_mean_b_tis": mean_b, "accuracy_mean_m_tis": mean_m, "gap_mean": mean_b - mean_m})
    return pd.DataFrame(rows, columns=GAP_COLUMNS)


def probe_positions(preds: pd.DataFrame) -> pd.DataFrame:
    """Probe accuracy by target row and column (TabIS Figure 10): per model x scoring x probe x variant."""
    items = item_answers(preds)
    items = items[items["subset"].isin(PROBE_SUBSETS)]
    keys = ["model_name", "backend", "scoring", "subset", "content_variant", "target_row", "target_col"]
    if items.empty:
        return pd.DataFrame(columns=PROBE_COLUMNS)
    items = items.assign(mean_right=(items["right_ab"].astype(float) + items["right_ba"].astype(float)) / 2)
    out = items.groupby(keys, sort=True, dropna=False).agg(
        n_items=("item_id", "size"), accuracy_mean=("mean_right", "mean"),
        accuracy_both=("right_both", "mean")).reset_index()
    for c in ("target_row", "target_col"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype("Int64")
    return out[PROBE_COLUMNS]


def property_regressions(preds: pd.DataFrame, tables: pd.DataFrame) -> pd.DataFrame:
    """Whether an item is right in both orders, regressed on its table's properties (the HCT-QA design,
    a linear probability model with SEs clustered by table), per model under test and pooled, per
    scoring and item group (`question_items`: b/su/m_tis; `probes`: tsu_*). The oracle is in no fit."""
    items = item_answers(preds)
    frames = []
    for scoring in SCORINGS:
        for group, subsets in (("question_items", ("b_tis", "su_tis", "m_tis")), ("probes", PROBE_SUBSETS)):
            sel = items[(items["scoring"] == scoring) & items["subset"].isin(subsets)
                        & ~items["backend"].isin(reference_backends())]
            if sel.empty:
                continue
            # The regression reads HCT-QA score rows: one binary "cc" row per model x item.
            long = pd.DataFrame({
                "cache_key": sel["model_name"].astype(str) + "|" + sel["item_id"].astype(str),
                "model_name": sel["model_name"], "backend": sel["backend"], "table_format": "csv",
                "inference_mode": "choice", "scoring_mode": "strict", "question_id": sel["item_id"],
                "table_id": sel["table_id"], "metric": "cc", "value": sel["right_both"].astype(float),
                "left_out": False})
            fit = property_regression(long, tables, metric_modes={"cc": "strict"}, kind="table", table_format=None)
            frames.append(fit.assign(metric="right_both_orders", scoring=scoring, item_group=group))
    if not frames:
        from ..analysis.regression import REGRESSION_COLUMNS
        return pd.DataFrame(columns=["scoring", "item_group", *REGRESSION_COLUMNS])
    out = pd.concat(frames, ignore_index=True)
    return out[["scoring", "item_group", *[c for c in out.columns if c not in ("scoring", "item_group")]]]
