"""The report's figures as drawn: titles inside the figure, tick labels apart and integer where counts are,
and a regression panel that says why nothing was estimated."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis import plots
from evaluation_py.testing.analysis_inputs import make_benchmark_inputs


@pytest.fixture
def drawn(monkeypatch):
    """The figures the plot functions save, drawn, with a renderer to measure them."""
    figures = []
    save = plots._save

    def keep(fig, out_dir, filename):
        figures.append(fig)
        return save(fig, out_dir, filename)

    monkeypatch.setattr(plots, "_save", keep)
    import evaluation_py.choice.figures as choice_figures

    monkeypatch.setattr(choice_figures, "_save", keep)
    return figures


def _renderer(fig):
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _inside(fig, artist) -> bool:
    box = artist.get_window_extent(_renderer(fig))
    width = fig.get_figwidth() * fig.dpi
    return box.x0 >= 0 and box.x1 <= width


def test_a_one_model_coefficient_figure_keeps_its_long_title_inside(drawn, tmp_path):
    from evaluation_py.analysis.regression import property_regressions

    t, q, s = make_benchmark_inputs(40, 4, ["m_a"], seed=3)
    reg = property_regressions(s, t, q)
    reg = reg[reg.property_kind == "table"]
    plots.plot_coefficients_by_model(reg, tmp_path, ["m_a"], "cc", filename="coefficients_table_cc.png",
                                     title="Effect of table properties on complete containment (linear probability "
                                           "model, 95% CI clustered by table)")
    fig = drawn[-1]
    assert fig._suptitle is not None and _inside(fig, fig._suptitle)
    assert "\n" in fig._suptitle.get_text()  # wrapped to the width of one panel


def test_composition_count_labels_do_not_run_together(drawn, tmp_path):
    comp = pd.DataFrame({"facet": "finetune_split", "key": ["train", "dev", "test"],
                         "n_tables": [4210, 530, 525], "n_questions": [55873, 6981, 6966]})
    plots.plot_composition(comp, tmp_path, "finetune_split")
    fig = drawn[-1]
    r = _renderer(fig)
    for ax in fig.axes:
        boxes = sorted((lab.get_window_extent(r) for lab in ax.get_xticklabels() if lab.get_text()),
                       key=lambda b: b.x0)
        assert len(boxes) >= 2
        assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:])), [lab.get_text() for lab in ax.get_xticklabels()]


def test_probe_position_axes_count_whole_rows_and_columns(drawn, tmp_path):
    from evaluation_py.choice.figures import plot_probe_positions

    positions = pd.DataFrame({"model_name": "m", "backend": "openai", "scoring": "text", "subset": "tsu_pcl",
                              "content_variant": "original", "target_row": [1, 2, 2], "target_col": [1, 2, 3],
                              "n_items": 2, "accuracy_mean": [0.5, 1.0, 0.0], "accuracy_both": [0.0, 1.0, 0.0]})
    plot_probe_positions(positions, tmp_path)
    ax = drawn[-1].axes[0]
    for ticks in (ax.get_yticks(), ax.get_xticks()):
        assert len(ticks) and all(float(v).is_integer() for v in ticks), ticks


def test_a_constant_outcome_is_the_reason_the_panel_and_caption_give(drawn, tmp_path):
    from evaluation_py.analysis.regression import property_regressions
    from evaluation_py.analysis.report_build import report_sections

    t, q, s = make_benchmark_inputs(30, 4, ["m_a"], seed=5)
    s = s.assign(value=0.0)  # every answer wrong: nothing varies
    reg = property_regressions(s, t, q)
    assert reg["dropped_reason"].str.startswith("outcome constant").any()
    why = plots.not_estimated_reason(reg[reg.property_kind == "table"], "f1", "ols", ["__pooled__", "m_a"])
    assert why.startswith("m_a: outcome constant") and "no model under test" not in why
    sections, _ = report_sections({"regression": reg}, s, tmp_path)
    section = next(x for x in sections if x.key == "regression_table")
    for _, caption in section.figures:
        assert "Not estimated: m_a: outcome constant" in caption and "no model under test" not in caption
    panel_text = " ".join(txt.get_text() for fig in drawn for ax in fig.axes for txt in ax.texts)
    assert "outcome constant" in panel_text and "no model under test" not in panel_text
    # nobody under test at all: that is the reason then
    assert plots.not_estimated_reason(reg.iloc[0:0], "f1", "ols", ["m_a"]).startswith("no model under test")
