"""The inference-mode figures of the report (mode_comparison's marts)."""
from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from evaluation_py.sandbox.result import ERROR_KINDS

from . import plots
from .schema import template_label

MODE_ORDER = ("direct", "tcot", "pot", "icot")


def plot_mode_family_heatmap(by_mode_family: pd.DataFrame, out_dir, metric: str = "f1",
                             scoring_mode: str = "strict") -> str:
    """One row per model x inference mode, one column per question family."""
    df = by_mode_family[by_mode_family["scoring_mode"] == scoring_mode] if len(by_mode_family) else by_mode_family
    rank = {m: i for i, m in enumerate(MODE_ORDER)}
    df = df.assign(model_name=[f"{m} / {i}" for m, i in zip(df["model_name"], df["inference_mode"])]) \
        .drop(columns=["inference_mode", "scoring_mode"])
    order = sorted(pd.unique(df["model_name"]).tolist(),
                   key=lambda s: (s.rsplit(" / ", 1)[0], rank.get(s.rsplit(" / ", 1)[-1], 99)))
    families = sorted(pd.unique(df["family"]).tolist()) if len(df) else []
    return plots.heatmap(df, "family", metric, out_dir, f"modes_by_family_{metric}.png",
                         f"Mean {metric.upper()} by model / inference mode and question family ({scoring_mode})",
                         "question family", model_order=order, scoring_mode=None,
                         column_labels={f: template_label(f) for f in families})


def plot_modes_by_skill(skill_rows: pd.DataFrame, out_dir, scoring_mode: str = "strict",
                        model_order: list[str] | None = None) -> str:
    """TReB's Figure 2 on HCTs: per model (a panel each), the mean of each TReB skill (x: its subtasks' means
    averaged) in each inference mode (a bar each, with its 95 % table-resampling interval)."""
    from generator_py.questions.treb_skills import SKILLS

    filename, title = "modes_by_treb_skill.png", f"Each TReB skill in each inference mode ({scoring_mode} scoring)"
    df = skill_rows[skill_rows["scoring_mode"] == scoring_mode] if len(skill_rows) else skill_rows
    if df.empty:
        fig = plots._new_figure(7, 3)
        plots._placeholder(fig, title, "no skill scores")
        return plots._save(fig, out_dir, filename)
    models = [m for m in (model_order or []) if m in set(df["model_name"])] or sorted(set(df["model_name"]))
    models += sorted(set(df["model_name"]) - set(models))
    skills = [s for s in SKILLS if s in set(df["treb_skill"])]
    modes = [m for m in MODE_ORDER if m in set(df["inference_mode"])] + \
        sorted(set(df["inference_mode"]) - set(MODE_ORDER))
    fig = plots._new_figure(2.0 + 1.1 * len(skills) * max(1, len(modes)) / 2, 1.0 + 2.6 * len(models),
                            layout="constrained")
    axes = fig.subplots(len(models), 1, squeeze=False)[:, 0]
    width = 0.8 / len(modes)
    for ax, model in zip(axes, models):
        mine = df[df["model_name"] == model].set_index(["treb_skill", "inference_mode"])
        for k, mode in enumerate(modes):
            x = np.arange(len(skills)) + (k - (len(modes) - 1) / 2) * width
            rows = [mine.loc[(s, mode)] if (s, mode) in mine.index else None for s in skills]
            mean = np.array([r["mean"] if r is not None else np.nan for r in rows], float)
            low = np.array([r["ci_low"] if r is not None else np.nan for r in rows], float)
            high = np.array([r["ci_high"] if r is not None else np.nan for r in rows], float)
            ax.bar(x, np.nan_to_num(mean), width, label=mode,
                   yerr=np.clip(np.vstack([mean - low, high - mean]), 0, None), capsize=2)
        ax.set_xticks(np.arange(len(skills)))
        ax.set_xticklabels(skills)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("mean (subtasks' own metrics)", fontsize=8)
        ax.set_title(model, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, ncol=len(modes), loc="upper right")
    fig.suptitle(plots.wrapped(title, fig.get_figwidth()), fontsize=10)
    return plots._save(fig, out_dir, filename)


def plot_execution_outcomes(errors: pd.DataFrame, out_dir) -> str:
    """Stacked shares of code runs by outcome (ok or error kind), one bar per model x mode x sandbox."""
    filename, title = "execution_outcomes.png", "How pot / icot code runs ended"
    if errors.empty:
        fig = plots._new_figure(7, 4)
        plots._placeholder(fig, title, "no code ran (no pot or icot predictions)")
        return plots._save(fig, out_dir, filename)
    bars = errors.assign(bar=[f"{m} / {i} ({s})" for m, i, s in
                              zip(errors["model_name"], errors["inference_mode"], errors["sandbox"])])
    shares = bars.pivot_table(index="bar", columns="outcome", values="share_of_runs", aggfunc="sum").fillna(0.0)
    outcomes = [o for o in ("ok", *ERROR_KINDS) if o in shares.columns]
    fig = plots._new_figure(8, 1.5 + 0.45 * len(shares), layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    left = np.zeros(len(shares))
    for outcome in outcomes:
        ax.barh(range(len(shares)), shares[outcome].to_numpy(), left=left, label=outcome)
        left += shares[outcome].to_numpy()
    ax.set_yticks(range(len(shares)))
    ax.set_yticklabels(shares.index.tolist(), fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of code blocks run")
    ax.set_title(title)
    ax.legend(fontsize=7, loc="lower right")
    return plots._save(fig, out_dir, filename)


def mode_figures(frames: Mapping[str, pd.DataFrame], fig_dir, scoring_mode: str = "strict") -> list[tuple[str, str]]:
    """The report's mode figures, when the frames hold the mode marts (older callers pass none)."""
    figs = []
    if "by_mode_family" in frames:
        figs.append((plot_mode_family_heatmap(frames["by_mode_family"], fig_dir, "f1", scoring_mode),
                     f"Mean F1 of each model in each inference mode (direct, tcot, pot, icot) on each question "
                     f"family ({scoring_mode} scoring, each model on its primary table format; pot is scored on "
                     f"its program's executed answer, a failed run 0). The gains of pot and icot over direct "
                     f"and tcot per family are in the table analysis_mode_gains."))
    if "execution_errors" in frames:
        figs.append((plot_execution_outcomes(frames["execution_errors"], fig_dir),
                     "Shares of the pot and icot code blocks run that ended ok or with each error kind, per "
                     "model, mode and sandbox (analysis_execution_errors)."))
    return figs


def plot_mode_by_table_size(by_size: pd.DataFrame, out_dir, metric: str = "f1", scoring_mode: str = "strict",
                            model_order=None) -> str:
    """One panel per model x size measure: the mean of `metric` per size bin, a line per inference mode
    with its 95 % table-resampling interval (analysis_mode_by_table_size rows)."""
    from .table_size import SIZE_BINS, SIZE_MEASURES, bin_label

    filename = f"modes_by_table_size_{metric}.png"
    title = f"Mean {metric.upper()} by table size, per model and inference mode ({scoring_mode} scoring)"
    df = by_size[(by_size["metric"] == metric) & (by_size["scoring_mode"] == scoring_mode)] if len(by_size) else by_size
    if df.empty:
        fig = plots._new_figure(7, 4)
        plots._placeholder(fig, title, "no scores by table size")
        return plots._save(fig, out_dir, filename)
    present = set(df["model_name"])
    models = [m for m in (model_order or []) if m in present] + sorted(present - set(model_order or []))
    fig = plots._new_figure(4.2 * len(SIZE_MEASURES) + 1.5, 0.8 + 2.8 * len(models), layout="constrained")
    axes = fig.subplots(len(models), len(SIZE_MEASURES), squeeze=False)
    rank = {m: i for i, m in enumerate(MODE_ORDER)}
    for r, model in enumerate(models):
        for c, measure in enumerate(SIZE_MEASURES):
            ax = axes[r][c]
            labels = [bin_label(SIZE_BINS[measure], i) for i in range(len(SIZE_BINS[measure]))]
            sub = df[(df["model_name"] == model) & (df["size_measure"] == measure)]
            modes = sorted(pd.unique(sub["inference_mode"]).tolist(), key=lambda m: (rank.get(m, 99), m))
            for k, mode in enumerate(modes):
                line = sub[sub["inference_mode"] == mode].set_index("size_bin").reindex(labels)
                x = np.arange(len(labels)) + (k - (len(modes) - 1) / 2) * 0.08  # modes side by side in a bin
                mean = line["value"].to_numpy(float)
                err = np.vstack([mean - line["ci_low"].to_numpy(float), line["ci_high"].to_numpy(float) - mean])
                ax.errorbar(x, mean, yerr=np.clip(np.nan_to_num(err), 0, None), fmt="o-", capsize=2, markersize=4,
                            label=mode)
            ax.set_xticks(np.arange(len(labels)))
            ax.set_xticklabels(labels, fontsize=7, rotation=30)
            ax.set_ylim(-0.02, 1.02)
            ax.grid(axis="y", alpha=0.3)
            ax.set_title(f"{model}: by {measure.replace('_', ' ')}", fontsize=9)
            if c == 0:
                ax.set_ylabel(f"mean {metric.upper()}", fontsize=8)
            if modes:
                ax.legend(fontsize=7, loc="best")
            else:
                ax.text(0.5, 0.5, "not reported by this backend", ha="center", va="center", fontsize=8,
                        transform=ax.transAxes)
    fig.suptitle(plots.wrapped(title, fig.get_figwidth()), fontsize=10)
    return plots._save(fig, out_dir, filename)
