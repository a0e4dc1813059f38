"""Everything at once: frames, figures and the HTML report (used by the benchmark and
handy for a quick look; the dbt models call the single functions)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from . import breakdowns as bd
from . import plots
from .composition import benchmark_composition
from .regression import property_regression
from .report import write_report
from .schema import POOLED
from .selection import model_order


def run_analysis(scores: pd.DataFrame, tables: pd.DataFrame, questions: pd.DataFrame, out_dir,
                 build_info: Mapping | None = None, mode: str = "strict", include_logit: bool = False,
                 timings: dict | None = None) -> dict:
    """Compute every frame, write every figure and ``index.html`` under ``out_dir``.

    Returns ``{'frames': {...}, 'plots': [...], 'report': path}``. ``timings``, when
    given, receives seconds per step."""
    t = timings if timings is not None else {}

    def step(name, fn, *a, **k):
        t0 = time.perf_counter()
        r = fn(*a, **k)
        t[name] = t.get(name, 0.0) + time.perf_counter() - t0
        return r

    out = Path(out_dir)
    fig_dir = out / "figures"
    order = step("model_order", model_order, scores, mode=mode)
    frames = {
        "overall": step("overall", bd.overall_scores, scores),
        "by_source_dataset": step("by_source_dataset", bd.scores_by_source_dataset, scores),
        "by_table_format": step("by_table_format", bd.scores_by_table_format, scores),
        "by_template": step("by_template", bd.scores_by_template, scores, questions),
        "by_question_property": step("by_question_property", bd.scores_by_question_property, scores, questions),
        "by_aggregation_type": step("by_aggregation_type", bd.scores_by_aggregation_type, scores, questions),
        "verbosity": step("verbosity", bd.answer_verbosity, scores),
    }
    frames["verbosity_correlation"] = bd.verbosity_recall_correlation(frames["verbosity"])
    frames["composition"] = step("composition", benchmark_composition, tables, questions,
                                 include_question_properties=True)
    frames["regression_table"] = step("regression_table", property_regression, scores, tables, questions,
                                      kind="table", include_logit=include_logit)
    frames["regression_question"] = step("regression_question", property_regression, scores, tables,
                                         questions, kind="question", include_logit=include_logit)

    figs = []
    t0 = time.perf_counter()
    figs.append(plots.plot_template_heatmap(frames["by_template"], fig_dir, "f1", mode, order))
    figs.append(plots.plot_template_heatmap(frames["by_template"], fig_dir, "recall", mode, order))
    figs.append(plots.plot_question_property_heatmap(frames["by_question_property"], fig_dir, "f1", mode, order))
    figs.append(plots.plot_aggregation_type_heatmap(frames["by_aggregation_type"], fig_dir, "f1", mode, order))
    figs.append(plots.plot_coefficients(frames["regression_table"], fig_dir, (POOLED,), "f1",
                                        filename="coefficients_table_f1_pooled.png"))
    figs.append(plots.plot_coefficients(frames["regression_table"], fig_dir, (POOLED,), "cc",
                                        filename="coefficients_table_cc_pooled.png"))
    figs.append(plots.plot_coefficients(frames["regression_table"], fig_dir, tuple(order[:3]), "f1",
                                        filename="coefficients_table_f1_top3.png"))
    figs.append(plots.plot_coefficients(frames["regression_question"], fig_dir, (POOLED,), "f1",
                                        filename="coefficients_question_f1_pooled.png"))
    figs.append(plots.plot_verbosity_recall(frames["verbosity"], fig_dir, mode, order))
    figs += plots.plot_composition_all(frames["composition"], fig_dir)
    t["plots"] = t.get("plots", 0.0) + time.perf_counter() - t0

    shown = dict(frames)
    for k in ("regression_table", "regression_question"):
        r = frames[k]
        shown[k + " (pooled, estimated)"] = r[(r["model_name"] == POOLED) & r["dropped_reason"].isna()]
        shown[k + " (dropped properties, pooled)"] = r[(r["model_name"] == POOLED) & r["dropped_reason"].notna()]
        del shown[k]
    report = step("report", write_report, out, shown, figs, dict(build_info or {}))
    return {"frames": frames, "plots": figs, "report": report, "model_order": order}
