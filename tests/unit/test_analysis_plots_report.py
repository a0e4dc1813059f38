"""Figures are real PNGs of sensible size, deterministic; the report links only existing files."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from evaluation_py.analysis import breakdowns as bd
from evaluation_py.analysis import plots
from evaluation_py.analysis.composition import benchmark_composition
from evaluation_py.analysis.regression import property_regression
from evaluation_py.analysis.report import write_report
from evaluation_py.analysis.schema import POOLED
from evaluation_py.analysis.selection import model_order
from evaluation_py.analysis.synthetic import make_benchmark_inputs


@pytest.fixture(scope="module")
def inputs():
    return make_benchmark_inputs(80, 5, ["m_a", "m_b", "m_c"], seed=21, planted={"row_group_label": -0.3})


def _all_plots(inputs, out):
    t, q, s = inputs
    order = model_order(s)
    reg = property_regression(s, t, q)
    paths = [
        plots.plot_template_heatmap(bd.scores_by_template(s, q), out, model_order=order),
        plots.plot_question_property_heatmap(bd.scores_by_question_property(s, q), out, model_order=order),
        plots.plot_aggregation_type_heatmap(bd.scores_by_aggregation_type(s, q), out, model_order=order),
        plots.plot_coefficients(reg, out, (POOLED, *order), "f1"),
        plots.plot_coefficients(reg, out, ("nobody",), "f1", filename="coef_empty.png"),
        plots.plot_verbosity_recall(bd.answer_verbosity(s), out, model_order=order),
        *plots.plot_composition_all(benchmark_composition(t, q), out),
    ]
    return paths, reg


def test_plots_are_pngs_of_sensible_size(inputs, tmp_path):
    paths, _ = _all_plots(inputs, tmp_path / "a")
    assert len(paths) == 10 and len(set(paths)) == 10
    for p in paths:
        w, h = plots.png_size(p)
        assert w >= 300 and h >= 200, (p, w, h)
        assert Path(p).stat().st_size > 2000


def test_plots_are_deterministic(inputs, tmp_path):
    a, _ = _all_plots(inputs, tmp_path / "a")
    b, _ = _all_plots(inputs, tmp_path / "b")
    for pa, pb in zip(a, b):
        assert Path(pa).read_bytes() == Path(pb).read_bytes(), pa
    assert b"Software" not in Path(a[0]).read_bytes()[:400]


def test_svg_is_deterministic(inputs, tmp_path):
    t, q, s = inputs
    by_t = bd.scores_by_template(s, q)
    a = Path(plots.plot_template_heatmap(by_t, tmp_path / "a", filename="h.svg")).read_bytes()
    b = Path(plots.plot_template_heatmap(by_t, tmp_path / "b", filename="h.svg")).read_bytes()
    assert a == b and b"<svg" in a


def test_model_order_is_consistent(inputs):
    _, _, s = inputs
    order = model_order(s)
    assert order == ["m_a", "m_b", "m_c"]  # synthetic skills decrease with the index


def test_report_references_only_existing_files(inputs, tmp_path):
    out = tmp_path / "report"
    paths, reg = _all_plots(inputs, out / "figures")
    paths = [*paths, str(out / "figures" / "does_not_exist.png")]
    frames = {"regression <pooled>": reg[reg.model_name == POOLED],
              "evil": pd.DataFrame({"x": ["<script>alert(1)</script>"]})}
    index = write_report(out, frames, paths, {"build_date": "2025-01-02", "seed": 42,
                                              "config": {"models": ["m_a"], "mode": "strict"}})
    text = Path(index).read_text()
    refs = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", text)
    assert len(refs) == 10
    for r in refs:
        assert not r.startswith("/") and (out / r).is_file(), r
    assert "does_not_exist" not in " ".join(refs)
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "2025-01-02" in text and "42" in text and "&quot;mode&quot;" in text
    assert "regression &lt;pooled&gt;" in text


def test_run_analysis_end_to_end(inputs, tmp_path):
    from evaluation_py.analysis.pipeline import run_analysis

    t, q, s = inputs
    res = run_analysis(s, t, q, tmp_path / "out", {"build_date": "2025-01-02", "seed": 1})
    text = Path(res["report"]).read_text()
    refs = re.findall(r"""src=['"]([^'"]+)['"]""", text)
    assert len(refs) == len(res["plots"]) and all((tmp_path / "out" / r).is_file() for r in refs)
    assert res["model_order"] == ["m_a", "m_b", "m_c"]


def test_composition_plot_of_long_property_combinations_warns_nothing(tmp_path):
    # Keys as long as the build's property combinations (a dozen properties): without room for
    # them matplotlib's tight_layout warned into every build log.
    from evaluation_py.analysis.schema import TABLE_PROPERTY_COLUMNS

    keys = [" + ".join(TABLE_PROPERTY_COLUMNS[i:i + 12]) for i in range(10)] + ["(other combinations)"]
    composition = pd.DataFrame({"facet": "property_combination", "key": keys,
                                "n_tables": range(11, 0, -1), "n_questions": range(110, 0, -10)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = plots.plot_composition(composition, tmp_path, "property_combination")
    assert Path(path).stat().st_size > 0
