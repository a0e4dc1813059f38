"""Matplotlib figures (Agg canvas, no pyplot state) written to a folder.

Every function returns the path it wrote. Output is deterministic: PNG metadata
carries no software/date entry, SVG uses a fixed ``svg.hashsalt`` and no date.
Models appear in one order everywhere: decreasing mean F1 (pass ``model_order``
from :func:`selection.model_order`; without it the frame's own mean F1 is used).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg  # the Agg backend, without pyplot
from matplotlib.figure import Figure

from .schema import POOLED, QUESTION_PROPERTY_LABELS

DPI = 100
_LABEL_WRAP = 60  # characters per line of a long category label
_RC = {"svg.hashsalt": "hctqa-analysis", "svg.fonttype": "path", "path.simplify": True}


def _new_figure(width_in: float, height_in: float) -> Figure:
    fig = Figure(figsize=(max(width_in, 4.0), max(height_in, 3.0)), dpi=DPI)
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


def _pick_mode(df: pd.DataFrame, mode: str | None) -> pd.DataFrame:
    if "mode" not in df.columns or df.empty:
        return df
    if mode is not None and (df["mode"] == mode).any():
        return df[df["mode"] == mode]
    first = sorted(df["mode"].astype(str).unique())[0]
    return df[df["mode"] == first]


def _order_models(df: pd.DataFrame, model_order: Sequence[str] | None, value: str = "f1") -> list[str]:
    present = list(pd.unique(df["model_name"].astype(str))) if "model_name" in df.columns else []
    if model_order is not None:
        ordered = [m for m in model_order if m in set(present)]
        return ordered + sorted(m for m in present if m not in set(ordered))
    if value in df.columns:
        w = df["n"] if "n" in df.columns else pd.Series(1.0, index=df.index)
        tmp = df.assign(_w=w, _wv=df[value] * w)
        agg = tmp.groupby("model_name")[["_wv", "_w"]].sum()
        means = (agg["_wv"] / agg["_w"]).to_dict()
        return sorted(present, key=lambda m: (-(means.get(m, -np.inf)), m))
    return sorted(present)


def _placeholder(fig: Figure, title: str, text: str) -> None:
    ax = fig.add_subplot(1, 1, 1)
    ax.set_axis_off()
    ax.set_title(title)
    ax.text(0.5, 0.5, text, ha="center", va="center")


def heatmap(df: pd.DataFrame, column: str, value: str, out_dir, filename: str, title: str,
            xlabel: str, model_order: Sequence[str] | None = None, column_order: Sequence | None = None,
            column_labels: dict | None = None, mode: str | None = "strict") -> str:
    """Models (rows, decreasing mean F1 from the top) x ``column`` heatmap of ``value``,
    each cell printed with two decimals."""
    df = _pick_mode(df, mode)
    if df.empty or column not in df.columns or value not in df.columns:
        fig = _new_figure(7, 4)
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, filename)
    models = _order_models(df, model_order)
    cols = list(column_order) if column_order is not None else sorted(pd.unique(df[column]).tolist())
    cols = [c for c in cols if c in set(df[column].tolist())]
    grid = (df.pivot_table(index="model_name", columns=column, values=value, aggfunc="mean")
              .reindex(index=models, columns=cols))
    mat = grid.to_numpy(dtype=float)
    fig = _new_figure(2.5 + 0.75 * len(cols), 1.5 + 0.42 * len(models))
    ax = fig.add_subplot(1, 1, 1)
    im = ax.imshow(np.ma.masked_invalid(mat), aspect="auto", cmap="viridis", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(cols)))
    labels = [str((column_labels or {}).get(c, c)) for c in cols]
    ax.set_xticklabels(labels, rotation=45 if max((len(s) for s in labels), default=0) > 3 else 0, ha="right"
                       if max((len(s) for s in labels), default=0) > 3 else "center", fontsize=8)
    ax.set_yticks(range(len(models)))
    ax.set_yticklabels(models, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("model (decreasing mean F1)")
    ax.set_title(title)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            v = mat[i, j]
            if np.isfinite(v):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if v > 0.6 else "white")
    cb = fig.colorbar(im, ax=ax)
    cb.set_label(value)
    fig.tight_layout()
    return _save(fig, out_dir, filename)


def plot_template_heatmap(by_template: pd.DataFrame, out_dir, metric: str = "f1", mode: str = "strict",
                          model_order: Sequence[str] | None = None, filename: str | None = None) -> str:
    """Figure 39: model x synthetic question template."""
    return heatmap(by_template, "template_id", metric, out_dir, filename or f"heatmap_template_{metric}.png",
                   f"{metric.upper()} by model and question template ({mode})", "question template",
                   model_order=model_order, mode=mode)


def plot_question_property_heatmap(by_property: pd.DataFrame, out_dir, metric: str = "f1",
                                   mode: str = "strict", model_order: Sequence[str] | None = None,
                                   filename: str | None = None) -> str:
    """Figure 9(a): model x question property."""
    order = [p for p in QUESTION_PROPERTY_LABELS if p in set(by_property.get("property", pd.Series()).tolist())]
    order += sorted(set(by_property.get("property", pd.Series()).tolist()) - set(order))
    return heatmap(by_property, "property", metric, out_dir, filename or f"heatmap_question_property_{metric}.png",
                   f"{metric.upper()} by model and question property ({mode})", "question property",
                   model_order=model_order, column_order=order, column_labels=QUESTION_PROPERTY_LABELS, mode=mode)


def plot_aggregation_type_heatmap(by_agg: pd.DataFrame, out_dir, metric: str = "f1", mode: str = "strict",
                                  model_order: Sequence[str] | None = None, filename: str | None = None) -> str:
    """Figure 9(b): model x aggregation type."""
    return heatmap(by_agg, "aggregation_type", metric, out_dir, filename or f"heatmap_aggregation_type_{metric}.png",
                   f"{metric.upper()} by model and aggregation type ({mode})", "aggregation type",
                   model_order=model_order, column_order=["min", "max", "sum", "avg", "count"], mode=mode)


def plot_coefficients(regression: pd.DataFrame, out_dir, models: Sequence[str] = (POOLED,), metric: str = "f1",
                      model_type: str | None = None, filename: str | None = None, title: str | None = None) -> str:
    """Coefficient plot: point + clustered 95% CI per property, one marker series per
    model; significant (BH-adjusted p < 0.05) filled and coloured, others hollow grey."""
    from .regression import MODEL_TYPES

    model_type = model_type or MODEL_TYPES.get(metric, "ols")
    df = regression[(regression["metric"] == metric) & (regression["model_type"] == model_type)
                    & regression["model_name"].isin(list(models)) & regression["dropped_reason"].isna()
                    & np.isfinite(regression["coef"].astype(float))]
    name = filename or f"coefficients_{metric}.png"
    title = title or f"Effect of properties on {metric.upper()} ({model_type}, 95% CI clustered by table)"
    props = list(pd.unique(df["property"])) if len(df) else []
    fig = _new_figure(8.5, 1.6 + 0.32 * max(len(props), 1) * max(1, min(len(models), 3)) ** 0.5)
    if df.empty:
        _placeholder(fig, title, "no estimates")
        return _save(fig, out_dir, name)
    ax = fig.add_subplot(1, 1, 1)
    colors = ["tab:blue", "tab:red", "tab:green", "tab:purple", "tab:orange", "tab:brown", "tab:pink",
              "tab:olive", "tab:cyan", "tab:gray"]
    present = [m for m in models if m in set(df["model_name"])]
    width = 0.7 / max(len(present), 1)
    for k, m in enumerate(present):
        sub = df[df["model_name"] == m].set_index("property").reindex(props)
        y = np.arange(len(props)) + (k - (len(present) - 1) / 2) * width
        coef = sub["coef"].to_numpy(float)
        lo, hi = sub["ci_low"].to_numpy(float), sub["ci_high"].to_numpy(float)
        sig = sub["significant"].fillna(False).to_numpy(bool)
        color = colors[k % len(colors)]
        label = "pooled (model fixed effects)" if m == POOLED else str(m)
        ok = np.isfinite(lo) & np.isfinite(hi)
        ax.hlines(y[ok], lo[ok], hi[ok], color=color, alpha=0.8, linewidth=1.5)
        if sig.any():
            ax.scatter(coef[sig], y[sig], color=color, s=36, zorder=3, label=f"{label}: significant (BH p < 0.05)")
        if (~sig).any():
            ax.scatter(coef[~sig], y[~sig], facecolors="white", edgecolors=color, s=30, zorder=3,
                       label=f"{label}: not significant")
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(props)))
    ax.set_yticklabels([QUESTION_PROPERTY_LABELS.get(p, p) for p in props], fontsize=8)
    ax.set_xlabel(f"coefficient (change in {'P(CC)' if metric == 'cc' and model_type != 'logit' else metric.upper()})"
                  if model_type != "logit" else "coefficient (log-odds of CC)")
    ax.set_ylabel("property")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="best")
    ax.grid(axis="x", alpha=0.3)
    ax.set_ylim(len(props) - 0.5, -0.5)
    fig.tight_layout()
    return _save(fig, out_dir, name)


def plot_verbosity_recall(verbosity: pd.DataFrame, out_dir, mode: str = "strict",
                          model_order: Sequence[str] | None = None, filename: str = "verbosity_recall.png") -> str:
    """Figure 38: one point per model, mean values given (x) vs recall (y), labelled;
    dashed line at the mean number of expected values."""
    df = _pick_mode(verbosity, mode)
    title = f"Recall vs verbosity ({mode})"
    fig = _new_figure(7.5, 5.5)
    if df.empty:
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, filename)
    models = _order_models(df, model_order)
    df = df.set_index("model_name").reindex(models)
    ax = fig.add_subplot(1, 1, 1)
    x, y = df["mean_values_given"].to_numpy(float), df["recall"].to_numpy(float)
    ax.scatter(x, y, color="tab:blue", zorder=3)
    for m, xi, yi in zip(models, x, y):
        if np.isfinite(xi) and np.isfinite(yi):
            ax.annotate(m, (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=7)
    exp = float(np.nanmean(df["mean_values_expected"].to_numpy(float)))
    if np.isfinite(exp):
        ax.axvline(exp, color="grey", linestyle="--", linewidth=1, label=f"mean values expected ({exp:.2f})")
        ax.legend(fontsize=8, loc="best")
    ax.set_xlabel("mean number of values in the answer")
    ax.set_ylabel("mean recall")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _save(fig, out_dir, filename)


def plot_composition(composition: pd.DataFrame, out_dir, facet: str, filename: str | None = None) -> str:
    """Horizontal bars of n_tables and n_questions for one composition facet."""
    df = composition[composition["facet"] == facet]
    title = f"Benchmark composition: {facet.replace('_', ' ')}"
    name = filename or f"composition_{facet}.png"
    # A property combination names up to a dozen properties: wrapped, its label fits beside the bars
    # (unwrapped, tight_layout cannot make room and warns).
    labels = [textwrap.fill(str(k), _LABEL_WRAP) for k in df["key"]]
    longest = max((len(line) for label in labels for line in label.splitlines()), default=10)
    extra_lines = sum(label.count("\n") for label in labels)
    fig = _new_figure(min(6.0 + 0.06 * longest, 16.0), 1.5 + 0.3 * max(len(df), 1) + 0.12 * extra_lines)
    if df.empty:
        _placeholder(fig, title, "no data")
        return _save(fig, out_dir, name)
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(df))
    for ax, col, color in zip(axes, ("n_tables", "n_questions"), ("tab:blue", "tab:orange")):
        vals = df[col].to_numpy(float)
        ax.barh(y, vals, color=color)
        for yi, v in zip(y, vals):
            ax.text(v, yi, f" {int(v)}", va="center", fontsize=7)
        ax.set_xlabel(col.replace("n_", "number of "))
        ax.set_xlim(0, max(vals.max(), 1) * 1.2)
    axes[0].set_yticks(y)
    axes[0].set_yticklabels(labels, fontsize=7)
    axes[0].invert_yaxis()
    axes[0].set_ylabel(facet.replace("_", " "))
    fig.suptitle(title)
    fig.tight_layout()
    return _save(fig, out_dir, name)


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
