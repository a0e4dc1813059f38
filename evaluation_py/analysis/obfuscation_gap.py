"""The report's figure of the obfuscation gap (analysis_obfuscation_gap): each model's mean metric on the
original questions and on their obfuscated twins, side by side (the paper's RQ3)."""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from .plots import _new_figure, _save

CAPTION = ("Mean {metric} of each model on the original questions and on their text-obfuscated twins (the same "
           "tables and questions with every table word replaced by an invented non-word; the paper's RQ3), "
           "over the pairs scored in both ({mode} scoring); the label is the gap, original minus obfuscated.")


def plot_obfuscation_gap(gap: pd.DataFrame, out_dir, metric: str = "f1", scoring_mode: str = "strict",
                         filename: str = "obfuscation_gap.png") -> Optional[str]:
    """Paired bars per model x table format x inference mode; None when no model answered both variants."""
    df = gap[(gap["metric"] == metric) & (gap["scoring_mode"] == scoring_mode)]
    if df.empty:
        return None
    df = df.sort_values(["value_original", "model_name"], ascending=[False, True])
    labels = [f"{r.model_name} ({r.table_format}, {r.inference_mode})" for r in df.itertuples()]
    y = np.arange(len(df))
    fig = _new_figure(8.0, 1.5 + 0.5 * len(df))
    ax = fig.add_subplot(1, 1, 1)
    ax.barh(y - 0.2, df["value_original"], height=0.4, color="tab:blue", label="original")
    ax.barh(y + 0.2, df["value_obfuscated"], height=0.4, color="tab:orange", label="obfuscated")
    for yi, r in zip(y, df.itertuples()):
        ax.annotate(f"gap {r.gap:+.3f} (n={r.n_pairs})", (max(r.value_original, r.value_obfuscated), yi),
                    textcoords="offset points", xytext=(4, -3), fontsize=7)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.25)
    ax.set_xlabel(f"mean {metric}")
    ax.set_title(f"Obfuscation gap ({metric}, {scoring_mode})")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _save(fig, out_dir, filename)
