"""analysis_layout_effect: what a table property does to a model's score, measured on the layout counterfactuals.

A counterfactual set is a base table of the benchmark and its toggles, each the base laid out again with one
property changed, the data and the questions the same (generator_py.counterfactuals). Every question of a toggle
pairs with the same question on the base: one of the two layouts has the property, the other lacks it, and nothing
else differs. The paired difference (score with the property minus score without it) is a causal estimate of the
property's effect on that question; its mean over the pairs of a property estimates the effect, with a 95 %
interval from a bootstrap that resamples whole sets (a set's pairs share their data and questions) and a two-sided
p value from the set-clustered standard error.

Beside it, two observational estimates of the same property over the benchmark's original tables: the difference
of the mean score on the tables that have the property and on those that lack it (`observational_difference`, with a
95 % interval from resampling tables), and the property's coefficient in analysis_property_regression (other
properties held fixed; strict scoring, where the regression estimates it: it fits the sub-properties, so a parent
such as row_nesting, whole in its children, has none). `borders` is no flag of benchmark_tables: it has neither.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .leaderboard import N_BOOT, _generator, resample_weights, cluster_interval, clustered_p_value

GROUP = ["model_name", "backend", "table_format", "inference_mode", "scoring_mode", "metric", "property"]
LAYOUT_EFFECT_COLUMNS = [*GROUP, "n_pairs", "n_sets", "mean_without", "mean_with", "effect", "ci_low", "ci_high",
                         "p_value", "observational_difference", "observational_difference_ci_low",
                         "observational_difference_ci_high", "observational_coef", "observational_ci_low",
                         "observational_ci_high", "observational_p_value_adjusted"]
SCORE_KEYS = ["model_name", "backend", "table_format", "inference_mode", "scoring_mode", "metric"]
SCORE_COLUMNS = (*SCORE_KEYS, "question_id", "value", "left_out")
QUESTION_COLUMNS = ("question_id", "variant", "original_question_id", "table_id")
TABLE_COLUMNS = ("table_id", "counterfactual_set_id", "counterfactual_property", "counterfactual_has_property")
REGRESSION_SCORING_MODE = "strict"


def layout_pairs(scores: pd.DataFrame, questions: pd.DataFrame, tables: pd.DataFrame) -> pd.DataFrame:
    """One row per scored pair: a toggle's question and the same question on its base, for one model, format, mode,
    scoring mode and metric, with the set, the property and the two values (`value_with`, `value_without`).
    A pair either side of which paper mode left out is not a pair."""
    q = questions[list(QUESTION_COLUMNS)]
    t = tables[list(TABLE_COLUMNS)]
    toggled = q[q["variant"] == "counterfactual"].merge(t, on="table_id", how="inner")
    toggled = toggled[toggled["counterfactual_property"].notna()]
    if toggled.empty:
        return pd.DataFrame(columns=[*GROUP, "counterfactual_set_id", "question_id", "value_with", "value_without"])
    s = scores[list(SCORE_COLUMNS)]
    s = s[s["question_id"].isin(set(toggled["question_id"]) | set(toggled["original_question_id"]))]
    s = s[~s["left_out"].fillna(False).astype(bool)]
    toggle_scores = s.merge(toggled[["question_id", "original_question_id", "counterfactual_set_id",
                                     "counterfactual_property", "counterfactual_has_property"]], on="question_id")
    base_scores = s.rename(columns={"question_id": "original_question_id", "value": "value_base"})
    pairs = toggle_scores.merge(base_scores[[*SCORE_KEYS, "original_question_id", "value_base"]],
                                on=[*SCORE_KEYS, "original_question_id"])
    has = pairs["counterfactual_has_property"].astype(bool).to_numpy()
    value = pairs["value"].astype(float).to_numpy()
    base = pairs["value_base"].astype(float).to_numpy()
    return pairs.assign(property=pairs["counterfactual_property"], value_with=np.where(has, value, base),
                        value_without=np.where(has, base, value))[
        [*GROUP, "counterfactual_set_id", "question_id", "value_with", "value_without"]]


def _observational(regression: pd.DataFrame | None) -> pd.DataFrame:
    cols = ["model_name", "metric", "property", "observational_coef", "observational_ci_low", "observational_ci_high",
            "observational_p_value_adjusted"]
    if regression is None or regression.empty:
        return pd.DataFrame(columns=cols)
    r = regression
    if "property_kind" in r.columns:
        r = r[r["property_kind"] == "table"]
    if "dropped_reason" in r.columns:
        r = r[r["dropped_reason"].isna()]
    r = r.rename(columns={"coef": "observational_coef", "ci_low": "observational_ci_low",
                          "ci_high": "observational_ci_high", "p_value_adjusted": "observational_p_value_adjusted"})
    return r[cols].drop_duplicates(["model_name", "metric", "property"])


def observational_differences(scores: pd.DataFrame, questions: pd.DataFrame, tables: pd.DataFrame,
                              properties, seed: int = 0, n_boot: int = N_BOOT) -> pd.DataFrame:
    """Per score group (SCORE_KEYS) and property of `properties` that is a column of `tables`: over the original
    questions, the mean score on tables with the property minus the mean on tables without it, with a 95 %
    interval from a bootstrap resampling tables."""
    cols = [*SCORE_KEYS, "property", "observational_difference", "observational_difference_ci_low",
            "observational_difference_ci_high"]
    flags = [p for p in properties if p in tables.columns]
    originals = questions.loc[questions["variant"].fillna("original") == "original", ["question_id", "table_id"]]
    s = scores[list(SCORE_COLUMNS)]
    s = s[~s["left_out"].fillna(False).astype(bool)].merge(originals, on="question_id")
    s = s.merge(tables[["table_id", *flags]], on="table_id")
    rows = []
    for key, g in s.groupby(SCORE_KEYS, sort=True):
        codes, uniques = pd.factorize(g["table_id"])
        values = g["value"].to_numpy(dtype=float)
        sums = np.bincount(codes, weights=values, minlength=len(uniques))
        counts = np.bincount(codes, minlength=len(uniques)).astype(float)
        per_table = g.drop_duplicates("table_id").set_index("table_id").loc[uniques]
        w = None
        for prop in flags:
            has = per_table[prop].fillna(False).astype(bool).to_numpy()
            if has.all() or not has.any():
                continue
            if w is None:  # one set of resamples per group, shared by its properties
                rng = _generator(seed, "layout_observational", *key)
                w = resample_weights(len(uniques), n_boot, rng)
            diff = sums[has].sum() / counts[has].sum() - sums[~has].sum() / counts[~has].sum()
            with np.errstate(invalid="ignore", divide="ignore"):
                boot = (w[:, has] @ sums[has]) / (w[:, has] @ counts[has]) - (w[:, ~has] @ sums[~has]) / (
                    w[:, ~has] @ counts[~has])
            boot = boot[np.isfinite(boot)]
            low, high = np.percentile(boot, [2.5, 97.5]) if len(boot) else (np.nan, np.nan)
            rows.append((*key, prop, float(diff), float(low), float(high)))
    return pd.DataFrame(rows, columns=cols)


def layout_effects(scores: pd.DataFrame, questions: pd.DataFrame, tables: pd.DataFrame,
                   regression: pd.DataFrame | None = None, seed: int = 0, n_boot: int = N_BOOT) -> pd.DataFrame:
    """`analysis_layout_effect`: per model x format x mode x scoring mode x metric x property, the mean paired
    difference (with minus without), its set-clustered interval and p value, the two means, and the observational
    estimates: the difference over the original tables (`observational_differences`) and the property's
    coefficient in analysis_property_regression (`regression`) for the strict scoring mode."""
    pairs = layout_pairs(scores, questions, tables)
    rows = []
    for key, g in pairs.groupby(GROUP, sort=True):
        d = (g["value_with"] - g["value_without"]).to_numpy(dtype=float)
        sets = g["counterfactual_set_id"].to_numpy()
        mean, low, high = cluster_interval(d, sets, n_boot, _generator(seed, "layout_effect", *key))
        rows.append((*key, int(len(g)), int(pd.unique(sets).size), float(g["value_without"].mean()),
                     float(g["value_with"].mean()), mean, low, high, clustered_p_value(d, sets)))
    out = pd.DataFrame(rows, columns=[*GROUP, "n_pairs", "n_sets", "mean_without", "mean_with", "effect", "ci_low",
                                      "ci_high", "p_value"])
    if len(out):
        differences = observational_differences(scores, questions, tables, sorted(set(out["property"])), seed, n_boot)
        out = out.merge(differences, on=[*SCORE_KEYS, "property"], how="left")
    observed = _observational(regression)
    strict = out["scoring_mode"] == REGRESSION_SCORING_MODE
    joined = out[strict].merge(observed, on=["model_name", "metric", "property"], how="left")
    out = pd.concat([joined, out[~strict]], ignore_index=True).reindex(columns=LAYOUT_EFFECT_COLUMNS)
    out = out.sort_values(GROUP, kind="stable").reset_index(drop=True)
    for c in ("n_pairs", "n_sets"):
        out[c] = out[c].astype("int64")
    for c in LAYOUT_EFFECT_COLUMNS[len(GROUP) + 2:]:
        out[c] = out[c].astype("float64")
    for c in GROUP:
        out[c] = out[c].astype(object)
    return out


# ------------------------------------------------------------------ the report's figure

CAPTION = ("One panel per model (its {fmt} prompts, {mode} scoring), one row per table property: the causal effect "
           "on {metric} from the layout counterfactuals (blue: the same data and questions, the layout with the property "
           "minus the one without; 95% interval resampling sets) beside the observational estimates over the "
           "benchmark's original tables (orange: tables with the property minus tables without; green: the "
           "property's coefficient in the property regression, other properties held fixed, where it is estimated). "
           "Where blue and orange disagree, what the property goes with, not the property, moves the score.")
ESTIMATES = (("effect", "ci_low", "ci_high", "causal (counterfactual pairs)", "tab:blue"),
             ("observational_difference", "observational_difference_ci_low", "observational_difference_ci_high",
              "observational: with - without", "tab:orange"),
             ("observational_coef", "observational_ci_low", "observational_ci_high", "observational: regression",
              "tab:green"))


def plot_layout_effects(effects: pd.DataFrame, out_dir, models, metric: str = "f1", scoring_mode: str = "strict",
                        filename: str = "layout_effect.png"):
    """The causal and observational estimates per property, a panel per model (`models`, in that order; each on its
    most frequent format, html first); None when no model has pairs."""
    from .plots import _new_figure, _save, wrapped

    df = effects[(effects["metric"] == metric) & (effects["scoring_mode"] == scoring_mode)]
    models = [m for m in models if m in set(df["model_name"])]
    if not models:
        return None
    props = sorted(pd.unique(df["property"]).tolist())
    fig = _new_figure(3.4 * len(models) + 2.2, 1.4 + 0.42 * len(props), layout="constrained")
    axes = fig.subplots(1, len(models), sharey=True, squeeze=False)[0]
    y = np.arange(len(props))
    for ax, model in zip(axes, models):
        sub = df[df["model_name"] == model]
        fmt = "html" if (sub["table_format"] == "html").any() else sorted(sub["table_format"])[0]
        sub = sub[(sub["table_format"] == fmt)].drop_duplicates("property").set_index("property").reindex(props)
        for k, (col, low, high, label, color) in enumerate(ESTIMATES):
            mean = sub[col].to_numpy(float)
            err = np.vstack([mean - sub[low].to_numpy(float), sub[high].to_numpy(float) - mean])
            shown = np.isfinite(mean)
            if shown.any():
                ax.errorbar(mean[shown], y[shown] + (k - 1) * 0.22, xerr=np.clip(np.nan_to_num(err[:, shown]), 0, None),
                            fmt="o", color=color, ecolor=color, capsize=2, markersize=4, label=label)
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.set_title(f"{model} ({fmt})", fontsize=9)
        ax.set_xlabel(f"effect on {metric} (95% interval)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels([p.replace("_", " ") for p in props], fontsize=8)
    axes[0].set_ylim(len(props) - 0.5, -0.5)
    axes[-1].legend(fontsize=7, loc="lower right")
    fig.suptitle(wrapped(f"Does the property cause the score? Causal and observational effects on {metric} "
                         f"({scoring_mode})", fig.get_figwidth()), fontsize=10)
    return _save(fig, out_dir, filename)
