"""Matplotlib figures (Agg canvas, no pyplot state) written to a folder.

Every function returns the path it wrote. Output is deterministic: PNG metadata
carries no software/date entry, SVG uses a fixed ``svg.hashsalt`` and no date.
Models appear in one order everywhere: decreasing mean F1 (pass ``model_order``
from :func:`selection.model_order`; without it the frame's own mean F1 is used).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg  # the Agg backend, without pyplot
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from .composition import NONE, OTHER
from .schema import (POOLED, QUESTION_PROPERTY_LABELS, TABLE_MAIN_PROPERTIES, property_label, reference_backends,
                     template_label)

DPI = 100
_RC = {"svg.hashsalt": "hctqa-analysis", "svg.fonttype": "path", "path.simplify": True}


def _new_figure(width_in: float, height_in: float, layout: str | None = None) -> Figure:
    # layout="constrained" sizes the margins to the labels (tight_layout warns and gives up on long ones)
    fig = Figure(figsize=(max(width_in, 4.0), max(height_in, 3.0)), dpi=DPI, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, out_dir, filename: str) -> str:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / filename
    ext = path.suffix.lower()
    if ext == ".svg":
        meta = {"Date": None, "Creator": None}
    elif ext == ".pdf":
        meta = {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
    else:
        meta = {"Software": None}
    with matplotlib.rc_context(_RC):
        fig.savefig(path, dpi=DPI, metadata=meta)
    return str(path)


def _pick(df: pd.DataFrame, column: str, wanted: str | None) -> pd.DataFrame:
    """The rows of ``df`` whose ``column`` is ``wanted``; the first value (sorted) when none is."""
    if column not in df.columns or df.empty:
        return df
    if wanted is not None and (df[column] == wanted).any():
        return df[df[column] == wanted]
    first = sorted(df[column].astype(str).unique())[0]
    return df[df[column].astype(str) == first]


def _pick_modes(df: pd.DataFrame, scoring_mode: str | None) -> pd.DataFrame:
    """One scoring mode and one inference mode (``direct`` where present) of a breakdown."""
    return _pick(_pick(df, "scoring_mode", scoring_mode), "inference_mode", "direct")


def _metric_values(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """A long breakdown's rows of ``metric`` with the mean as column ``metric`` (a wide frame as it is)."""
    if "metric" not in df.columns or metric in df.columns:
        return df
    return df[df["metric"] == metric].rename(columns={"value": metric})


def _order_models(df: pd.DataFrame, model_order: Sequence[str] | None, value: str = "f1") -> list[str]:
    present = list(pd.unique(df["model_name"].astype(str))) if "model_name" in df.columns else []
    if model_order is not None:
        ordered = [m for m in model_order if m in set(present)]
        return ordered + sorted(m for m in present if m not in set(ordered))
    df = _metric_values(df, value)
    if value in df.columns:
        w = df["n"] if "n" in df.columns else pd.Series(1.0, index=df.index)
        tmp = df.assign(_w=w, _wv=df[value] * w)
        agg = tmp.groupby("model_name")[["_wv", "_w"]].sum()
        means = (agg["_wv"] / agg["_w"]).to_dict()
        return sorted(present, key=lambda m: (-(means.get(m, -np.inf)), m))
    return sorted(present)


def wrapped(text: str, width_in: float, fontsize: float = 10.0) -> str:
    """``text`` broken into lines that fit ``width_in`` inches at ``fontsize`` points (a long title
    would otherwise run past both edges of a narrow figure)."""
    import textwrap

    per_line = max(20, int(width_in * 72.0 / (0.6 * fontsize)))
    return "\n".join(textwrap.wrap(text, per_line)) or text


def _placeholder(fig: Figure, title: str, text: str) -> None:
    width = fig.get_figwidth()
    ax = fig.add_subplot(1, 1, 1)
    ax.set_axis_off()
    ax.set_title(wrapped(title, width))
    ax.text(0.5, 0.5, wrapped(text, width * 0.9, 9), ha="center", va="center", fontsize=9)


def heatmap(df: pd.DataFrame, column: str, value: str, out_dir, filename: str, title: str,
            xlabel: str, model_order: Sequence[str] | None = None, column_order: Sequence | None = None,
            column_labels: dict | None = None, scoring_mode: str | None = "strict") -> str:
    """Models (rows, decreasing mean F1 from the top) x ``column`` heatmap of metric ``value``
    (any registered metric of a long breakdown), each cell printed with two decimals."""
    df = _pick_modes(df, scoring_mode)
    models = _order_models(df, model_order) if not df.empty else []
    df = _metric_values(df, value)
    if df.empty or column not in df.columns or value not in df.columns:
        fig = _new_figure(7, 4)
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, filename)
    cols = list(column_order) if column_order is not None else sorted(pd.unique(df[column]).tolist())
    cols = [c for c in cols if c in set(df[column].tolist())]
    grid = (df.pivot_table(index="model_name", columns=column, values=value, aggfunc="mean")
              .reindex(index=models, columns=cols))
    mat = grid.to_numpy(dtype=float)
    labels = [str((column_labels or {}).get(c, c)) for c in cols]
    longest = max((len(s) for s in labels), default=0)
    # rotated column labels take their length in height: without it they squash the map
    fig = _new_figure(2.5 + 0.75 * len(cols), 1.5 + 0.42 * len(models) + (0.06 * longest if longest > 3 else 0),
                      layout="constrained")
    ax = fig.add_subplot(1, 1, 1)
    im = ax.imshow(np.ma.masked_invalid(mat), aspect="auto", cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(labels, rotation=45 if max((len(s) for s in labels), default=0) > 3 else 0, ha="right"
                       if max((len(s) for s in labels), default=0) > 3 else "center", fontsize=8)
    ax.set_yticks(range(len(models)))
    ax.set_yticklabels(models, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("model")  # in decreasing mean F1, top down (a longer label outgrows a short map)
    ax.set_title(title)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            v = mat[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if v > 0.6 else "white")
    cb = fig.colorbar(im, ax=ax)
    cb.set_label(value)
    return _save(fig, out_dir, filename)


def plot_template_heatmap(by_template: pd.DataFrame, out_dir, metric: str = "f1", scoring_mode: str = "strict",
                          model_order: Sequence[str] | None = None, filename: str | None = None) -> str:
    """Figure 39: model x synthetic question template."""
    ids = sorted(pd.unique(by_template["template_id"]).tolist()) if "template_id" in by_template.columns else []
    return heatmap(by_template, "template_id", metric, out_dir, filename or f"heatmap_template_{metric}.png",
                   f"{metric.upper()} by model and question template ({scoring_mode})", "question template",
                   model_order=model_order, column_labels={t: template_label(t) for t in ids},
                   scoring_mode=scoring_mode)


def plot_question_property_heatmap(by_property: pd.DataFrame, out_dir, metric: str = "f1",
                                   scoring_mode: str = "strict", model_order: Sequence[str] | None = None,
                                   filename: str | None = None) -> str:
    """Figure 9(a): model x question property."""
    order = [p for p in QUESTION_PROPERTY_LABELS if p in set(by_property.get("property", pd.Series()).tolist())]
    order += sorted(set(by_property.get("property", pd.Series()).tolist()) - set(order))
    return heatmap(by_property, "property", metric, out_dir, filename or f"heatmap_question_property_{metric}.png",
                   f"{metric.upper()} by model and question property ({scoring_mode})", "question property",
                   model_order=model_order, column_order=order, column_labels={p: property_label(p) for p in order},
                   scoring_mode=scoring_mode)


def plot_aggregation_type_heatmap(by_agg: pd.DataFrame, out_dir, metric: str = "f1", scoring_mode: str = "strict",
                                  model_order: Sequence[str] | None = None, filename: str | None = None) -> str:
    """Figure 9(b): model x aggregation type."""
    return heatmap(by_agg, "aggregation_type", metric, out_dir, filename or f"heatmap_aggregation_type_{metric}.png",
                   f"{metric.upper()} by model and aggregation type ({scoring_mode})", "aggregation type",
                   model_order=model_order, column_order=["min", "max", "sum", "avg", "count"],
                   scoring_mode=scoring_mode)


def _coefficient_rows(regression: pd.DataFrame, metric: str, model_type: str) -> pd.DataFrame:
    return regression[(regression["metric"] == metric) & (regression["model_type"] == model_type)
                      & regression["dropped_reason"].isna() & np.isfinite(regression["coef"].astype(float))]


def plot_coefficients_by_model(regression: pd.DataFrame, out_dir, models: Sequence[str], metric: str = "f1",
                               model_type: str | None = None, filename: str | None = None,
                               title: str | None = None, per_row: int = 4) -> str:
    """One panel per fit, side by side on a shared property axis: the pooled fit (when
    ``models`` names it and it has rows) and each model under test. Point and clustered
    95% CI per property; filled when significant (BH-adjusted p < 0.05), hollow when not;
    a property a fit could not estimate is left blank in that panel."""
    from .regression import model_type_of

    model_type = model_type or model_type_of(metric)
    df = _coefficient_rows(regression, metric, model_type)
    fits = [m for m in models if m in set(df["model_name"])]
    name = filename or f"coefficients_{metric}_by_model.png"
    title = title or f"Effect of properties on {metric.upper()} ({model_type}, 95% CI clustered by table)"
    # every panel in the fits' own candidate order (the order of the rows), whatever each estimated
    props = [p for p in pd.unique(regression["property"]) if p in set(df["property"])]
    if not fits:
        fig = _new_figure(8.0, 3.0)
        _placeholder(fig, title, "no estimates: " + not_estimated_reason(regression, metric, model_type, models))
        return _save(fig, out_dir, name)
    ncols = min(len(fits), per_row)
    nrows = -(-len(fits) // ncols)
    labels = [property_label(p) for p in props]
    fig = _new_figure(2.2 + 0.055 * max(len(s) for s in labels) + 3.2 * ncols,
                      1.2 + nrows * (0.9 + 0.26 * len(props)), layout="constrained")
    axes = np.atleast_2d(fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False))
    y = np.arange(len(props))
    for k, ax in enumerate(axes.flat):
        if k >= len(fits):
            ax.set_axis_off()
            continue
        m = fits[k]
        sub = df[df["model_name"] == m].set_index("property").reindex(props)
        coef = sub["coef"].to_numpy(float)
        lo, hi = sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float)
        sig = sub["significant"].fillna(False).to_numpy(bool)
        color = "tab:red" if m == POOLED else "tab:blue"
        ok = np.isfinite(lo) & np.isfinite(hi)
        ax.hlines(y[ok], lo[ok], hi[ok], color=color, alpha=0.8, linewidth=1.5)
        est = np.isfinite(coef)
        ax.scatter(coef[est & sig], y[est & sig], color=color, s=30, zorder=3, label="significant (BH p < 0.05)")
        ax.scatter(coef[est & ~sig], y[est & ~sig], facecolors="white", edgecolors=color, s=26, zorder=3,
                   label="not significant")
        ax.axvline(0.0, color="black", linewidth=0.8)
        ax.grid(axis="x", alpha=0.3)
        n = int(sub["n"].dropna().iloc[0]) if "n" in sub.columns and sub["n"].notna().any() else None
        head = "pooled over the models under test" if m == POOLED else str(m)
        ax.set_title(head + (f" (n = {n:,})" if n is not None else ""), fontsize=9)
        if k % ncols == 0:
            ax.set_yticks(y)
            ax.set_yticklabels(labels, fontsize=8)
        if k >= len(fits) - ncols:  # the lowest panel of its column: it carries the x axis
            ax.xaxis.set_tick_params(labelbottom=True)
            ax.set_xlabel("coefficient (log-odds of CC)" if model_type == "logit" else
                          f"change in {'P(CC)' if metric == 'cc' else metric.upper()}", fontsize=8)
    axes.flat[0].set_ylim(len(props) - 0.5, -0.5)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", linestyle="-", color="grey", markerfacecolor="grey"),
               Line2D([], [], marker="o", linestyle="-", color="grey", markerfacecolor="white")]
    fig.legend(handles, ["significant (BH-adjusted p < 0.05)", "not significant"], loc="outside lower center",
               ncols=2, fontsize=8, frameon=False)
    fig.suptitle(wrapped(title, fig.get_figwidth()), fontsize=10)
    return _save(fig, out_dir, name)


def not_estimated_reason(regression: pd.DataFrame, metric: str, model_type: str, models: Sequence[str]) -> str:
    """Why a fit of ``metric`` has no estimate for any of ``models``: each model's reason from the
    regression rows (their ``dropped_reason``, e.g. "outcome constant ..."), or that no model under test
    entered a fit."""
    if regression.empty:
        return "no model under test (the oracle enters no fit)"
    rows = regression[(regression["metric"] == metric) & (regression["model_type"] == model_type)
                      & regression["model_name"].isin(list(models))]
    reasons = []
    for m, sub in rows.groupby("model_name", sort=False):
        why = sub["dropped_reason"].dropna()
        text = why.mode().iloc[0] if len(why) else "no estimate"
        reasons.append(f"{'pooled fit' if m == POOLED else m}: {text}")
    return "; ".join(reasons) if reasons else "no model under test (the oracle enters no fit)"


def plot_verbosity_recall(verbosity: pd.DataFrame, out_dir, scoring_mode: str = "strict",
                          model_order: Sequence[str] | None = None, filename: str = "verbosity_recall.png",
                          metric: str = "recall") -> str:
    """Figure 38: one point per model, mean values given (x) vs recall (y; or another ``metric``),
    labelled; dashed line at the mean number of expected values."""
    df = _metric_values(_pick_modes(verbosity, scoring_mode), metric)
    title = f"{metric.capitalize()} vs verbosity ({scoring_mode})"
    fig = _new_figure(7.5, 5.5)
    if df.empty:
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, filename)
    models = _order_models(df, model_order)
    df = df.set_index("model_name").reindex(models)
    ax = fig.add_subplot(1, 1, 1)
    x, y = df["mean_values_given"].to_numpy(float), df[metric].to_numpy(float)
    oracle = df["backend"].isin(reference_backends()).fillna(False).to_numpy(bool) if "backend" in df.columns \
        else np.zeros(len(df), dtype=bool)
    ax.scatter(x[~oracle], y[~oracle], color="tab:blue", zorder=3, label="model under test")
    if oracle.any():
        ax.scatter(x[oracle], y[oracle], color="grey", marker="D", zorder=3, label="oracle (the ground truth)")
    for m, xi, yi in zip(models, x, y):
        if np.isfinite(xi) and np.isfinite(yi):
            ax.annotate(m, (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
    exp = float(np.nanmean(df["mean_values_expected"].to_numpy(float)))
    if np.isfinite(exp):
        ax.axvline(exp, color="grey", linestyle="--", linewidth=1, label=f"mean values expected ({exp:.2f})")
    ax.legend(fontsize=8, loc="best")
    ax.set_xlabel("mean number of distinct values in the answer")
    ax.set_ylabel(f"mean {metric}")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, out_dir, filename)


def plot_composition(composition: pd.DataFrame, out_dir, facet: str, filename: str | None = None) -> str:
    """Horizontal bars of n_tables and n_questions for one composition facet (property
    names shown readable); the property-combination facet is drawn by
    :func:`plot_property_combinations`."""
    if facet == "property_combination":
        return plot_property_combinations(composition, out_dir, filename)
    df = composition[composition["facet"] == facet]
    title = f"Benchmark composition: {facet.replace('_', ' ')}"
    name = filename or f"composition_{facet}.png"
    named = facet in ("property", "question_property")
    keys = [property_label(k) if named else str(k) for k in df["key"]]
    fig = _new_figure(9.0, 1.4 + 0.28 * max(len(df), 1), layout="constrained")
    if df.empty:
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, name)
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(df))
    for ax, col, color in zip(axes, ("n_tables", "n_questions"), ("tab:blue", "tab:orange")):
        vals = df[col].to_numpy(float)
        ax.barh(y, vals, color=color)
        for yi, v in zip(y, vals):
            ax.text(v, yi, f" {int(v):,}", va="center", fontsize=7)
        ax.set_xlabel(col.replace("n_", "number of "))
        ax.set_xlim(0, max(vals.max(), 1) * 1.2)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))  # large counts: labels stay apart
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{int(v):,}"))
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(keys, fontsize=8)
    axes[0].invert_yaxis()
    axes[0].set_ylabel(facet.replace("_", " "))
    fig.suptitle(title)
    return _save(fig, out_dir, name)


def plot_property_combinations(composition: pd.DataFrame, out_dir, filename: str | None = None) -> str:
    """The combinations of main table properties as an UpSet chart: bars of tables and of
    questions per combination (most frequent first) over a dot matrix saying which
    properties each combination has. Combinations beyond the facet's top ones are not
    drawn as a bar (one such bar would dwarf the rest); the title counts what they hold."""
    df = composition[composition["facet"] == "property_combination"]
    name = filename or "composition_property_combination.png"
    other = df[df["key"].astype(str).str.startswith(OTHER)]
    df = df[~df.index.isin(other.index)]
    title = "Benchmark composition: tables per combination of main properties"
    if len(other):
        title += (f"\n(not drawn: {other['key'].iloc[0][len(OTHER):].strip().lstrip('x')} rarer combinations, "
                  f"{int(other['n_tables'].sum()):,} tables, {int(other['n_questions'].sum()):,} questions)")
    if df.empty:
        fig = _new_figure(8.0, 3.0)
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, name)
    members = [set() if k == NONE else set(str(k).split(" + ")) for k in df["key"]]
    rows: list[str] = []
    for m in members:
        rows += [p for p in sorted(m, key=_main_order) if p not in rows]
    rows.sort(key=_main_order)
    labels = [property_label(r) for r in rows]
    x = np.arange(len(df))
    fig = _new_figure(2.0 + 0.075 * max(len(s) for s in labels) + 0.42 * len(df), 6.0 + 0.3 * len(rows),
                      layout="constrained")
    ax_t, ax_q, ax_m = fig.subplots(3, 1, sharex=True, height_ratios=[3, 3, max(len(rows), 1) * 0.9])
    for ax, col, color in ((ax_t, "n_tables", "tab:blue"), (ax_q, "n_questions", "tab:orange")):
        vals = df[col].to_numpy(float)
        ax.bar(x, vals, color=color, width=0.7)
        for xi, v in zip(x, vals):
            ax.text(xi, v, f"{int(v):,}", ha="center", va="bottom", fontsize=7)
        ax.set_ylim(0, max(vals.max(), 1) * 1.18)
        ax.set_ylabel(col.replace("n_", "number of "), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    for j, m in enumerate(members):
        ax_m.scatter([j] * len(rows), range(len(rows)), color="#dddddd", s=40, zorder=2)
        on = [i for i, r in enumerate(rows) if r in m]
        if on:
            ax_m.plot([j, j], [min(on), max(on)], color="black", linewidth=1.5, zorder=3)
            ax_m.scatter([j] * len(on), on, color="black", s=40, zorder=4)
    ax_m.set_yticks(range(len(rows)))
    ax_m.set_yticklabels(labels, fontsize=8)
    ax_m.set_ylim(len(rows) - 0.5, -0.5)
    ax_m.set_xticks(x)
    ax_m.set_xticklabels([])
    ax_m.tick_params(axis="x", length=0)
    ax_m.set_xlabel("combination (a column of dots: the properties its tables have)", fontsize=9)
    for spine in ax_m.spines.values():
        spine.set_visible(False)
    fig.suptitle(title, fontsize=10)
    return _save(fig, out_dir, name)


def _main_order(prop: str) -> int:
    order = [*TABLE_MAIN_PROPERTIES, "standard_relational_table"]
    return order.index(prop) if prop in order else len(order)


def plot_composition_all(composition: pd.DataFrame, out_dir) -> list[str]:
    """One composition chart per facet present (in the order of first appearance)."""
    return [plot_composition(composition, out_dir, f) for f in pd.unique(composition["facet"])]


def png_size(path: str | os.PathLike) -> tuple[int, int]:
    """(width, height) from a PNG header; raises ValueError when not a PNG."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def plot_means_with_intervals(board: pd.DataFrame, out_dir, filename: str, title: str,
                              metrics: Sequence[str] = ("f1", "cc"), label_columns: Sequence[str] = (),
                              baselines: Sequence[str] = ()) -> str:
    """Leaderboard rows (eval_leaderboard's columns, one scoring mode) as points with their 95 % interval as
    error bars: one row per model (and ``label_columns``' values), one panel per metric, in decreasing mean of
    the first metric; ``baselines`` drawn grey."""
    df = board[board["metric"].isin(list(metrics))]
    fig_w = 3.0 + 3.4 * len(metrics)
    if df.empty:
        fig = _new_figure(fig_w, 3.0)
        _placeholder(fig, title, "no scores")
        return _save(fig, out_dir, filename)
    keys = ["model_name", *label_columns]
    df = df.assign(_label=[" / ".join(str(v) for v in vals) for vals in df[keys].itertuples(index=False)])
    first = df[df["metric"] == metrics[0]].set_index("_label")["mean"]
    labels = sorted(pd.unique(df["_label"]).tolist(), key=lambda s: (-first.get(s, -np.inf), s))
    base = {lab for lab, m in zip(df["_label"], df["model_name"]) if m in set(baselines)}
    fig = _new_figure(fig_w + 0.06 * max(len(s) for s in labels), 1.4 + 0.32 * len(labels), layout="constrained")
    axes = fig.subplots(1, len(metrics), sharey=True, squeeze=False)[0]
    y = np.arange(len(labels))
    for ax, metric in zip(axes, metrics):
        sub = df[df["metric"] == metric].set_index("_label").reindex(labels)
        mean = sub["mean"].to_numpy(float)
        err = np.vstack([mean - sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float) - mean])
        grey = np.array([lab in base for lab in labels])
        for mask, color in ((~grey, "tab:blue"), (grey, "grey")):
            if mask.any():
                ax.errorbar(mean[mask], y[mask], xerr=np.clip(err[:, mask], 0, None), fmt="o", color=color,
                            ecolor=color, capsize=3, markersize=5)
        ax.set_xlim(-0.02, 1.02)
        ax.set_xlabel(f"mean {metric.upper() if len(metric) <= 3 else metric} (95% interval)", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(labels, fontsize=8)
    axes[0].set_ylim(len(labels) - 0.5, -0.5)
    fig.suptitle(wrapped(title, fig.get_figwidth()), fontsize=10)
    return _save(fig, out_dir, filename)


def plot_bars(df: pd.DataFrame, label: str, value: str, out_dir, filename: str, title: str, xlabel: str,
              xlim: tuple[float, float] | None = None) -> str:
    """One horizontal bar per row of ``df``: ``value`` at its ``label``, printed beside the bar."""
    fig = _new_figure(8.0, 1.5 + 0.4 * max(len(df), 1), layout="constrained")
    if df.empty:
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, filename)
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(len(df))
    vals = df[value].to_numpy(float)
    ax.barh(y, np.nan_to_num(vals), color="tab:blue")
    for yi, v in zip(y, vals):
        ax.text(0 if not np.isfinite(v) else v, yi, f" {v:.2f}" if np.isfinite(v) else " not defined",
                va="center", fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels(df[label].astype(str).tolist(), fontsize=8)
    ax.invert_yaxis()
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_title(wrapped(title, fig.get_figwidth()))
    return _save(fig, out_dir, filename)
