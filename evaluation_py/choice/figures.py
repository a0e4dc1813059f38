"""The report's choice figures and tables (the choice section of `analysis.report_build`).

Each model is shown under its preferred scoring: `logprobs` where it has scored answers, else `text`.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from ..analysis.plots import _new_figure, _placeholder, _save
from .spec import SUBSETS

FRAME_KEYS = ("choice_accuracy", "choice_gap", "choice_probe_positions", "choice_regression")
MAX_PANELS = 6
CELL_PROBES = ("tsu_pcl", "tsu_rcl")


def preferred_scoring(df: pd.DataFrame) -> pd.DataFrame:
    """Per model its logprobs rows where it has any, else its text rows."""
    if df.empty:
        return df
    has_lp = set(df.loc[df["scoring"] == "logprobs", "model_name"])
    keep = np.where(df["model_name"].isin(has_lp), df["scoring"] == "logprobs", df["scoring"] == "text")
    return df[keep]


def plot_subset_accuracy(accuracy: pd.DataFrame, out_dir, filename: str = "choice_accuracy_by_subset.png") -> str:
    """Models x subsets heatmap of the share of items right in both orders."""
    title = "Choice items right in both option orders"
    df = preferred_scoring(accuracy)
    fig = _new_figure(2.5 + 0.8 * len(SUBSETS), 1.6 + 0.45 * max(1, df["model_name"].nunique() if len(df) else 1),
                      layout="constrained")
    if df.empty:
        _placeholder(fig, title, "no model answered choice items")
        return _save(fig, out_dir, filename)
    # Pooled over strategies and variants, weighted by items.
    g = df.assign(right=df["accuracy_both"] * df["n_items"]).groupby(["model_name", "scoring", "subset"])
    agg = (g["right"].sum() / g["n_items"].sum()).rename("acc").reset_index()
    agg["label"] = agg["model_name"] + " (" + agg["scoring"] + ")"
    labels = sorted(agg["label"].unique())
    cols = [s for s in SUBSETS if s in set(agg["subset"])]
    grid = agg.pivot_table(index="label", columns="subset", values="acc").reindex(index=labels, columns=cols)
    mat = grid.to_numpy(dtype=float)
    ax = fig.add_subplot(1, 1, 1)
    im = ax.imshow(np.ma.masked_invalid(mat), aspect="auto", cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(labels)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_title(title)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            if np.isfinite(mat[i, j]):
                ax.text(j, i, f"{mat[i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if mat[i, j] > 0.6 else "white")
    fig.colorbar(im, ax=ax).set_label("right in both orders")
    return _save(fig, out_dir, filename)


def plot_probe_positions(positions: pd.DataFrame, out_dir, filename: str = "choice_probe_positions.png") -> str:
    """Cell-probe accuracy (mean over both orders) by target row x column, one panel per model
    (TabIS Figure 10); original content, both cell probes pooled."""
    title = "Cell-probe accuracy by target position"
    df = preferred_scoring(positions)
    if not df.empty:
        df = df[df["subset"].isin(CELL_PROBES) & (df["content_variant"] == "original")
                & df["target_row"].notna() & df["target_col"].notna()]
    models = sorted(df["model_name"].unique())[:MAX_PANELS] if len(df) else []
    fig = _new_figure(4.2 * max(1, len(models)), 4.0, layout="constrained")
    if not models:
        _placeholder(fig, title, "no cell probe answered")
        return _save(fig, out_dir, filename)
    rows = int(df["target_row"].max())
    cols = int(df["target_col"].max())
    im = None
    for k, model in enumerate(models):
        sub = df[df["model_name"] == model]
        w = sub.assign(right=sub["accuracy_mean"] * sub["n_items"]).groupby(["target_row", "target_col"])
        acc = (w["right"].sum() / w["n_items"].sum()).reset_index(name="acc")
        mat = np.full((rows, cols), np.nan)
        for r, c, a in acc.itertuples(index=False):
            mat[int(r) - 1, int(c) - 1] = a
        ax = fig.add_subplot(1, len(models), k + 1)
        im = ax.imshow(np.ma.masked_invalid(mat), aspect="auto", cmap="viridis", vmin=0.0, vmax=1.0,
                       extent=(0.5, cols + 0.5, rows + 0.5, 0.5))
        ax.set_title(f"{model} ({sub['scoring'].iloc[0]})", fontsize=9)
        ax.set_xlabel("target column")
        ax.set_ylabel("target row")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rows and columns are counted, never halves
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(title)
    fig.colorbar(im, ax=fig.axes).set_label("accuracy (both orders' answers)")
    return _save(fig, out_dir, filename)


def choice_figures(frames: Mapping[str, pd.DataFrame], fig_dir) -> list[tuple[str, str]]:
    """The choice figures, or none when the frames lack the choice tables."""
    if not all(k in frames for k in FRAME_KEYS):
        return []
    return [
        (plot_subset_accuracy(frames["choice_accuracy"], fig_dir),
         "Share of two-option items (TabIS subsets and structure probes) each model gets right in both option "
         "orders, pooled over distractor strategies and content variants; each model under its log-probability "
         "scoring where its backend has one, else its text scoring. Random guessing gets 0.25."),
        (plot_probe_positions(frames["choice_probe_positions"], fig_dir),
         "Accuracy of the cell probes (tsu_pcl, tsu_rcl; original content) by the target's row and column of the "
         "CSV rendering, header rows included (TabIS Figure 10); blank: no probe there."),
    ]


def choice_tables(frames: Mapping[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, str]]:
    if not all(k in frames for k in FRAME_KEYS):
        return {}
    acc = frames["choice_accuracy"]
    by_subset = pd.DataFrame()
    if len(acc):
        g = acc.assign(rb=acc["accuracy_both"] * acc["n_items"], rm=acc["accuracy_mean"] * acc["n_items"],
                       ra=acc["accuracy_ab"] * acc["n_items"], rba=acc["accuracy_ba"] * acc["n_items"]).groupby(
            ["model_name", "backend", "scoring", "subset"], sort=True)
        n = g["n_items"].sum()
        by_subset = pd.DataFrame({"n_items": n, "accuracy_ab": g["ra"].sum() / n, "accuracy_ba": g["rba"].sum() / n,
                                  "accuracy_both": g["rb"].sum() / n, "accuracy_mean": g["rm"].sum() / n}).reset_index()
    reg = frames["choice_regression"]
    est = reg[reg["dropped_reason"].isna() & reg["coef"].notna()] if len(reg) else reg
    return {
        "choice accuracy by subset": (by_subset, "Two-option items per model, scoring and subset, pooled over "
                                      "strategies and variants: accuracy per option order, over both orders' "
                                      "answers, and right in both orders."),
        "choice accuracy by strategy and variant": (acc, "analysis_choice_accuracy: per distractor strategy and "
                                                    "content variant, with position bias (share_answer_a) and "
                                                    "the binomial test against random guessing (1/4 for both "
                                                    "orders)."),
        "choice robustness gap": (frames["choice_gap"], "b_tis - m_tis accuracy on the same source questions "
                                  "(TabIS Figure 5): the cost of a pseudo-relevant second table."),
        "choice probe accuracy by target position": (frames["choice_probe_positions"],
                                                     "analysis_choice_probe_positions (TabIS Figure 10)."),
        "choice regression on table properties (estimated)": (est, "Right in both orders, linear probability "
                                                               "model on table properties; oracle in no fit."),
    }
