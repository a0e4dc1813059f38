"""Breakdowns, composition, score selection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis import breakdowns as bd
from evaluation_py.analysis.composition import benchmark_composition
from evaluation_py.analysis.schema import TABLE_PROPERTY_COLUMNS
from evaluation_py.analysis.selection import model_order, primary_formats, select_scores
from evaluation_py.testing.analysis_inputs import make_benchmark_inputs

METRICS = ["precision", "recall", "f1", "cc"]
LONG = ["metric", "value", "n", "n_left_out"]


def _metric(df: pd.DataFrame, metric: str = "f1") -> pd.DataFrame:
    return df[df.metric == metric]


@pytest.fixture(scope="module")
def data():
    return make_benchmark_inputs(120, 6, ["alpha", "beta", "gamma"], seed=11, scoring_modes=("strict", "paper"),
                                 table_formats={"alpha": ("html", "csv", "markdown"), "gamma": ("markdown",)},
                                 planted={"aggregation": -0.3})


def test_selection_primary_format_and_left_out(data):
    _, _, s = data
    assert primary_formats(s) == {"alpha": "html", "beta": "html", "gamma": "markdown"}
    sel = select_scores(s, scoring_mode="paper")
    assert not sel.left_out.any()
    assert set(sel.table_format) == {"html", "markdown"}
    assert len(select_scores(s, scoring_mode="strict", table_format=None)) == len(s[s["scoring_mode"] == "strict"])
    assert set(select_scores(s, metric="cc").metric) == {"cc"}
    order = model_order(s)
    means = _metric(select_scores(s, "strict")).groupby("model_name").value.mean()
    assert order == list(means.sort_values(ascending=False).index)


def test_template_breakdown(data):
    _, q, s = data
    out = bd.scores_by_template(s, q, scoring_mode="strict")
    assert list(out.columns) == ["model_name", "inference_mode", "scoring_mode", "template_id", *LONG]
    assert set(out.metric) == set(METRICS)
    assert out.template_id.between(1, 15).all()
    # n sums to the synthetic questions per model, for each metric
    n_syn = q.template_id.notna().sum()
    assert (out.groupby(["model_name", "metric"]).n.sum() == n_syn).all()
    # template_id joined from questions when scores lack it
    out2 = bd.scores_by_template(s.drop(columns="template_id"), q, scoring_mode="strict")
    pd.testing.assert_frame_equal(out.reset_index(drop=True), out2.reset_index(drop=True))


def test_question_property_and_aggregation_type(data):
    _, q, s = data
    out = bd.scores_by_question_property(s, q, scoring_mode="strict")
    assert {"aggregation", "rank", "rank_report_top", "row_filter_condition_type_expression"} <= set(out.property)
    a = _metric(out[(out.model_name == "beta") & (out.property == "aggregation")]).iloc[0]
    sel = _metric(select_scores(s, "strict"))
    expected = sel[(sel.model_name == "beta") & sel.question_id.isin(q[q.aggregation].question_id)].value.mean()
    assert a.value == pytest.approx(expected)
    topk = out[(out.model_name == "beta") & (out.property == "rank_report_top")].iloc[0]
    assert topk.n == int(q.rank_report_top.notna().sum())
    agg = bd.scores_by_aggregation_type(s, q, scoring_mode="strict")
    assert set(agg.aggregation_type) == {"min", "max", "sum", "avg", "count"}
    assert (_metric(agg, "cc").groupby("model_name").n.sum() == q.aggregation.sum()).all()


def test_table_format_source_and_verbosity(data):
    _, _, s = data
    tf = bd.scores_by_table_format(s, scoring_mode="strict")
    alpha = _metric(tf[tf.model_name == "alpha"]).set_index("table_format")
    assert set(alpha.index) == {"html", "csv", "markdown"}
    assert alpha.loc["html", "value_minus_html"] == 0
    assert alpha.loc["csv", "value_minus_html"] == pytest.approx(alpha.loc["csv", "value"] - alpha.loc["html", "value"])
    assert np.isnan(tf[tf.model_name == "gamma"].value_minus_html).all()
    sd = bd.scores_by_source_dataset(s, scoring_mode="paper")
    assert {"model_name", "scoring_mode", "source", "dataset", *LONG} <= set(sd.columns)
    assert _metric(sd).n.sum() == len(_metric(select_scores(s, "paper")))
    v = bd.answer_verbosity(s)
    row = _metric(v[(v.model_name == "beta") & (v["scoring_mode"] == "strict")], "recall").iloc[0]
    sel = select_scores(s, "strict")
    sel = sel[sel.model_name == "beta"]
    assert row.mean_values_given == pytest.approx(_metric(sel).n_values_given.mean())
    assert row.mean_values_expected == pytest.approx(_metric(sel).n_values_expected.mean())
    assert row.value == pytest.approx(_metric(sel, "recall").value.mean())
    corr = bd.verbosity_correlation(v)
    assert set(corr["scoring_mode"]) == {"strict", "paper"} and set(corr.metric) == set(METRICS)
    assert (corr.n_models == 3).all()


def test_overall_paper_mode_excludes_left_out(data):
    _, _, s = data
    ov = _metric(bd.overall_scores(s, scoring_mode="paper"))
    beta = _metric(s[(s.model_name == "beta") & (s["scoring_mode"] == "paper")])
    assert ov[ov.model_name == "beta"].value.iloc[0] == pytest.approx(beta[~beta.left_out].value.mean())


def test_composition(data):
    t, q, _ = data
    comp = benchmark_composition(t, q, top_combinations=5)
    assert list(comp.columns) == ["facet", "key", "n_tables", "n_questions"]
    assert set(comp.facet) == {"domain", "template", "property", "property_combination"}
    dom = comp[comp.facet == "domain"]
    assert dom.n_tables.sum() == len(t) and dom.n_questions.sum() == len(q)
    combo = comp[comp.facet == "property_combination"]
    assert combo.n_tables.sum() == len(t) and combo.n_questions.sum() == len(q)
    assert len(combo) == 6 and combo.key.iloc[-1].startswith("(other")
    prop = comp[comp.facet == "property"].set_index("key")
    assert list(prop.index) == list(TABLE_PROPERTY_COLUMNS)
    assert prop.loc["column_nesting", "n_tables"] == int(t.column_nesting.sum())
    tmpl = comp[comp.facet == "template"]
    assert tmpl.n_questions.sum() == int(q.template_id.notna().sum())
    assert "standard_relational_table" in set(combo.key) or combo.key.str.contains(" \\+ ").any()
    withq = benchmark_composition(t, q, include_question_properties=True)
    assert "question_property" in set(withq.facet)


def test_duckdb_nullable_dtypes_are_read(data):
    import duckdb
    from evaluation_py.analysis.regression import property_regression

    t, q, s = data
    con = duckdb.connect()
    con.register("t", t)
    con.register("q", q)
    con.register("s", s)
    # NULL booleans / integers, as the marts deliver them, plus a string-typed release number
    q2 = con.sql("select * replace (case when rank then rank_report_top end::varchar as rank_report_top, "
                 "case when aggregation then aggregation end as aggregation) from q").df()
    t2 = con.sql("select * replace (case when row_group_label then true end as row_group_label) from t").df()
    s2 = con.sql("select * replace (template_id::integer as template_id) from s").df()
    assert str(q2.aggregation.dtype) == "boolean"
    a = bd.scores_by_question_property(s, q, scoring_mode="strict")
    b = bd.scores_by_question_property(s2, q2, scoring_mode="strict")
    pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False)
    ta = bd.scores_by_template(s, q, scoring_mode="strict")
    tb = bd.scores_by_template(s2, q2, scoring_mode="strict")
    pd.testing.assert_frame_equal(ta.reset_index(drop=True), tb.reset_index(drop=True), check_dtype=False)
    ra = property_regression(s, t, q, pooled=False)
    rb = property_regression(s2, t2, q2, pooled=False)
    np.testing.assert_allclose(ra.coef.to_numpy(float), rb.coef.to_numpy(float), equal_nan=True)
    qa = property_regression(s, t, q, kind="question", pooled=False)
    qb = property_regression(s2, t2, q2, kind="question", pooled=False)
    np.testing.assert_allclose(qa.coef.to_numpy(float), qb.coef.to_numpy(float), equal_nan=True)
    ca, cb = benchmark_composition(t, q), benchmark_composition(t2, q2)
    pd.testing.assert_frame_equal(ca, cb)


def test_n_is_predictions_scored_with_n_left_out_beside_it(data):
    t, q, s = data
    frames = {
        "overall": bd.overall_scores(s),
        "template": bd.scores_by_template(s, q),
        "question_property": bd.scores_by_question_property(s, q),
        "aggregation_type": bd.scores_by_aggregation_type(s, q),
        "table_format": bd.scores_by_table_format(s),
        "source_dataset": bd.scores_by_source_dataset(s),
        "verbosity": bd.answer_verbosity(s),
    }
    for name, df in frames.items():
        assert {"n", "n_left_out"} <= set(df.columns), name
        assert (df[df["scoring_mode"] == "strict"].n_left_out == 0).all(), name
        assert (df[df["scoring_mode"] == "paper"].n_left_out > 0).any(), name
    ov = _metric(frames["overall"]).set_index(["model_name", "scoring_mode"])
    for model in ("alpha", "beta", "gamma"):
        rows = select_scores(s, scoring_mode="paper", exclude_left_out=False, metric="f1")
        rows = rows[rows.model_name == model]
        assert (ov.loc[(model, "paper"), "n"], ov.loc[(model, "paper"), "n_left_out"]) == (
            int((~rows.left_out).sum()), int(rows.left_out.sum()))
        assert ov.loc[(model, "strict"), "n"] == len(
            select_scores(s, scoring_mode="strict", metric="f1")[lambda d: d.model_name == model])
    # n + n_left_out is every prediction of the group
    tf = _metric(frames["table_format"])
    paper = _metric(s[s["scoring_mode"] == "paper"])
    alpha_csv = tf[(tf.model_name == "alpha") & (tf["scoring_mode"] == "paper") & (tf.table_format == "csv")].iloc[0]
    assert alpha_csv.n + alpha_csv.n_left_out == len(paper[(paper.model_name == "alpha") & (paper.table_format == "csv")])


def test_verbosity_correlation_leaves_the_oracle_out(data):
    _, _, s = data
    v = bd.answer_verbosity(s)
    oracle = v[v.model_name == "alpha"].assign(model_name="oracle", backend="oracle", value=1.0,
                                               mean_values_given=50.0)
    both = bd.verbosity_correlation(pd.concat([v, oracle], ignore_index=True))
    pd.testing.assert_frame_equal(both, bd.verbosity_correlation(v))
    assert (both.n_models == 3).all()
