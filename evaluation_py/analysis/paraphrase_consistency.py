"""analysis_paraphrase_consistency: does a model answer one question the same way however it is worded?

A paraphrase set is a question in every phrasing of its template (benchmark_questions.paraphrase_set_id): the same
table, SQL and answer, other words. Per model x table format x inference mode, over the sets it answered in every
phrasing: the share of sets answered identically in every phrasing (the same values as strict mode reads them, in
any order, or the same refusal), and per scoring mode and metric the spread of the metric across a set's phrasings
(its range, max minus min, and its standard deviation) and the share of sets scored the same in every phrasing.
Intervals (95 %) come from a bootstrap that resamples tables (a table's sets read the same cells).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evaluation_py.modes.outcomes import answers_for_scoring
from evaluation_py.scoring.scores import extract_answers
from evaluation_py.scoring.strict_reading import read_response

from .leaderboard import N_BOOT, _generator, cluster_interval

ANSWER_KEYS = ["model_name", "backend", "table_format", "inference_mode"]
CONSISTENCY_COLUMNS = [*ANSWER_KEYS, "scoring_mode", "metric", "n_sets", "n_tables", "phrasings_per_set",
                       "share_identical", "share_identical_ci_low", "share_identical_ci_high", "mean_value",
                       "share_same_score", "mean_range", "mean_range_ci_low", "mean_range_ci_high", "mean_sd"]
QUESTION_COLUMNS = ("question_id", "paraphrase_set_id", "table_id")


def answer_identity(answer) -> tuple:
    """What two answers must share to be the same answer: strict mode's reading of it (its values as a set, a number
    by its value, so `1,200` is `1200`; or that it refused, or gave none)."""
    reading = read_response(answer)
    values = frozenset(("number", number) if number is not None else ("text", texts[0])
                       for texts, number in reading.values)
    return (values, reading.unanswered, reading.refused)


def set_answers(requests: pd.DataFrame, predictions: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """One row per answered request of a paraphrase set's question: ANSWER_KEYS, question_id, paraphrase_set_id,
    table_id and the answer's identity (`answer_identity`); a request without an answer has none (its set is not
    complete)."""
    members = questions.loc[questions["paraphrase_set_id"].notna(), list(QUESTION_COLUMNS)]
    cols = [*ANSWER_KEYS, "question_id", "paraphrase_set_id", "table_id", "identity"]
    if members.empty or requests.empty:
        return pd.DataFrame(columns=cols)
    r = requests[requests["question_id"].isin(set(members["question_id"]))]  # read as eval_scores reads them
    executed = [c for c in ("execution_answer",) if c in predictions.columns]
    merged = r.drop(columns=["table_id"], errors="ignore").merge(
        predictions[["cache_key", "response", *executed]], on="cache_key", how="inner")
    merged = merged[merged["response"].notna()]
    if merged.empty:
        return pd.DataFrame(columns=cols)
    merged = merged.reset_index(drop=True)
    answers = answers_for_scoring(merged, extract_answers(merged))
    merged["identity"] = [answer_identity(a) for a in answers]
    return merged.merge(members, on="question_id")[cols]


def _complete(frame: pd.DataFrame, keys: list[str], sizes: pd.Series) -> pd.DataFrame:
    """Rows of the sets answered in every one of their phrasings (`sizes`: members per set)."""
    n = frame.groupby([*keys, "paraphrase_set_id"])["question_id"].transform("nunique")
    return frame[n.to_numpy() == frame["paraphrase_set_id"].map(sizes).to_numpy()]


def paraphrase_consistency(requests: pd.DataFrame, predictions: pd.DataFrame, questions: pd.DataFrame,
                           scores: pd.DataFrame, seed: int = 0, n_boot: int = N_BOOT) -> pd.DataFrame:
    """`analysis_paraphrase_consistency` (see the module docstring): one row per model x format x mode x scoring
    mode x metric, over the paraphrase sets the model answered in every phrasing."""
    members = questions.loc[questions["paraphrase_set_id"].notna(), list(QUESTION_COLUMNS)]
    if members.empty:
        return _typed(pd.DataFrame(columns=CONSISTENCY_COLUMNS))
    sizes = members.groupby("paraphrase_set_id")["question_id"].nunique()
    answers = _complete(set_answers(requests, predictions, questions), ANSWER_KEYS, sizes)
    identical: dict[tuple, tuple] = {}
    for key, g in answers.groupby(ANSWER_KEYS, sort=True):
        per_set = g.groupby("paraphrase_set_id", sort=True).agg(n=("identity", "nunique"),
                                                                 table_id=("table_id", "first"))
        values = (per_set["n"] == 1).to_numpy(dtype=float)
        identical[key] = cluster_interval(values, per_set["table_id"].to_numpy(), n_boot,
                                          _generator(seed, "paraphrase_identical", *key))
    s = scores.loc[~scores["left_out"].fillna(False).astype(bool),
                   [*ANSWER_KEYS, "scoring_mode", "metric", "question_id", "value"]].merge(members, on="question_id")
    s = _complete(s, [*ANSWER_KEYS, "scoring_mode", "metric"], sizes)
    rows = []
    for key, g in s.groupby([*ANSWER_KEYS, "scoring_mode", "metric"], sort=True):
        by_set = g.groupby("paraphrase_set_id", sort=True)
        per_set = by_set.agg(high=("value", "max"), low=("value", "min"), n=("value", "size"),
                             table_id=("table_id", "first"))
        per_set["sd"] = by_set["value"].std(ddof=0)
        spread = (per_set["high"] - per_set["low"]).to_numpy(dtype=float)
        tables = per_set["table_id"].to_numpy()
        mean_range, low, high = cluster_interval(spread, tables, n_boot, _generator(seed, "paraphrase_range", *key))
        share, share_low, share_high = identical.get(tuple(key[:len(ANSWER_KEYS)]), (np.nan, np.nan, np.nan))
        rows.append((*key, int(len(per_set)), int(pd.unique(tables).size), float(per_set["n"].mean()), share,
                     share_low, share_high, float(g["value"].mean()), float((spread == 0).mean()), mean_range, low,
                     high, float(per_set["sd"].mean())))
    return _typed(pd.DataFrame(rows, columns=CONSISTENCY_COLUMNS))


def _typed(out: pd.DataFrame) -> pd.DataFrame:
    """The mart's column types, also when it has no row."""
    for c in CONSISTENCY_COLUMNS:
        out[c] = out[c].astype("int64" if c in ("n_sets", "n_tables") else "float64"
                               if CONSISTENCY_COLUMNS.index(c) >= CONSISTENCY_COLUMNS.index("phrasings_per_set")
                               else "string")
    return out


# ------------------------------------------------------------------ the report's figure

CAPTION = ("One row per model / table format / inference mode, over the paraphrase sets it answered in every "
           "phrasing ({mode} scoring): left, the share of sets answered identically in every phrasing; right, the "
           "mean range of {metric} across a set's phrasings (max - min: how far the wording alone moves the score); "
           "bars are 95% intervals resampling tables. A model that read the question, not its words, scores 1 on "
           "the left and 0 on the right.")


def plot_paraphrase_consistency(consistency: pd.DataFrame, out_dir, metric: str = "f1", scoring_mode: str = "strict",
                                baselines=(), filename: str = "paraphrase_consistency.png"):
    """Share identical and the metric's mean range per model x format x mode; None when no set was answered."""
    from .plots import _new_figure, _save, wrapped

    df = consistency[(consistency["metric"] == metric) & (consistency["scoring_mode"] == scoring_mode)]
    if df.empty:
        return None
    df = df.sort_values(["share_identical", "model_name"], ascending=[False, True])
    labels = [f"{r.model_name} ({r.table_format}, {r.inference_mode})" for r in df.itertuples()]
    grey = np.array([m in set(baselines) for m in df["model_name"]])
    fig = _new_figure(8.0 + 0.05 * max(len(s) for s in labels), 1.4 + 0.36 * len(df), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True, squeeze=False)[0]
    y = np.arange(len(df))
    for ax, (col, low, high, xlabel) in zip(axes, (
            ("share_identical", "share_identical_ci_low", "share_identical_ci_high", "share answered identically"),
            ("mean_range", "mean_range_ci_low", "mean_range_ci_high", f"mean range of {metric} across phrasings"))):
        mean = df[col].to_numpy(float)
        err = np.clip(np.vstack([mean - df[low].to_numpy(float), df[high].to_numpy(float) - mean]), 0, None)
        for mask, color in ((~grey, "tab:blue"), (grey, "grey")):
            if mask.any():
                ax.errorbar(mean[mask], y[mask], xerr=err[:, mask], fmt="o", color=color, ecolor=color, capsize=3,
                            markersize=5)
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(labels, fontsize=8)
    axes[0].set_ylim(len(df) - 0.5, -0.5)
    fig.suptitle(wrapped(f"Does the wording change the answer? ({metric}, {scoring_mode})", fig.get_figwidth()),
                 fontsize=10)
    return _save(fig, out_dir, filename)
