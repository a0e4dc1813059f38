"""The figures and reports/index.html of a build, from the analysis tables the dbt models made."""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Mapping

import pandas as pd

from . import plots
from .report import write_report
from .schema import POOLED
from .selection import model_order


def build_report(out_dir, scores: pd.DataFrame, frames: Mapping[str, pd.DataFrame], build_info: Mapping) -> pd.DataFrame:
    out = Path(str(out_dir or "reports"))
    fig_dir = out / "figures"
    mode = "strict"
    order = model_order(scores, mode=mode) if len(scores) else []
    regression = frames["regression"]
    table_fit = regression[regression["property_kind"] == "table"]
    question_fit = regression[regression["property_kind"] == "question"]
    figs = [
        plots.plot_template_heatmap(frames["by_template"], fig_dir, "f1", mode, order),
        plots.plot_question_property_heatmap(frames["by_question_property"], fig_dir, "f1", mode, order),
        plots.plot_aggregation_type_heatmap(frames["by_aggregation_type"], fig_dir, "f1", mode, order),
        plots.plot_coefficients(table_fit, fig_dir, (POOLED,), "f1", filename="coefficients_table_f1_pooled.png"),
        plots.plot_coefficients(table_fit, fig_dir, (POOLED,), "cc", filename="coefficients_table_cc_pooled.png"),
        plots.plot_coefficients(question_fit, fig_dir, (POOLED,), "f1", filename="coefficients_question_f1_pooled.png"),
        plots.plot_verbosity_recall(frames["verbosity"], fig_dir, mode, order),
        *plots.plot_composition_all(frames["composition"], fig_dir),
    ]
    shown = {k: v for k, v in frames.items() if k != "regression"}
    for name, fit in (("table properties", table_fit), ("question properties", question_fit)):
        pooled = fit[fit["model_name"] == POOLED]
        shown[f"regression on {name} (pooled, estimated)"] = pooled[pooled["dropped_reason"].isna()]
        shown[f"regression on {name} (pooled, dropped)"] = pooled[pooled["dropped_reason"].notna()]
    info = {"date": datetime.date.today().isoformat(), **{k: v for k, v in build_info.items()}}
    index = write_report(out, shown, [f for f in figs if f], info)
    files = [Path(f) for f in figs if f] + [Path(index)]
    return pd.DataFrame({"path": [str(f) for f in files],
                         "kind": ["figure" if f.suffix == ".png" else "report" for f in files],
                         "bytes": [f.stat().st_size if f.exists() else 0 for f in files]})
