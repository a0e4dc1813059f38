"""Property regressions: planted effects, dropped properties, failures as rows."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis.design import build_design, table_property_values
from evaluation_py.analysis.regression import REGRESSION_COLUMNS, property_regression
from evaluation_py.analysis.schema import POOLED, TABLE_PROPERTY_COLUMNS
from evaluation_py.analysis.stats import bh_adjust, ols_clustered
from evaluation_py.testing.analysis_inputs import make_benchmark_inputs, make_questions, make_scores, make_tables


def _estimated(df, model, metric="f1", model_type=None):
    sub = df[(df.model_name == model) & (df.metric == metric) & df.dropped_reason.isna()]
    if model_type:
        sub = sub[sub.model_type == model_type]
    return sub.set_index("property")


@pytest.mark.parametrize("prop", ["row_group_label", "unbalanced_column_nesting", "implicit_row_aggregation"])
@pytest.mark.parametrize("seed", [0, 7])
def test_planted_table_effect_is_recovered(prop, seed):
    # base/noise keep F1 away from the [0, 1] clipping, which would attenuate the effect
    tables, questions, scores = make_benchmark_inputs(400, 5, ["good", "bad"], seed=seed, planted={prop: -0.3},
                                                      base=0.62, noise=0.08, table_noise=0.04)
    res = property_regression(scores, tables, questions)
    assert list(res.columns) == REGRESSION_COLUMNS
    for model in ("good", "bad", POOLED):
        est = _estimated(res, model, "f1")
        row = est.loc[prop]
        if model == POOLED:
            assert row.ci_low <= -0.3 <= row.ci_high, (model, row.coef, row.ci_low, row.ci_high)
        else:
            # 18 per-model CIs at 95% would miss about once by design: per model, 99.9% (3.3 SE)
            assert abs(row.coef + 0.3) <= 3.3 * row.std_err_clustered, (model, row.coef, row.std_err_clustered)
        assert row.p_value_adjusted < 0.05 and bool(row.significant)
        others = est.drop(index=prop)
        assert len(others) >= 10
        assert int(others.significant.sum()) <= 1, others[others.significant]
        assert row.model_type == "ols"
        assert (est.std_err_clustered > 0).all() and (est.std_err > 0).all()
    cc = _estimated(res, POOLED, "cc")
    assert (cc.model_type == "linear_probability_ols").all()
    assert cc.loc[prop, "coef"] < 0 and bool(cc.loc[prop, "significant"])


def test_planted_question_effect_is_recovered():
    tables, questions, scores = make_benchmark_inputs(300, 8, ["m1", "m2"], seed=3, planted={"aggregation": -0.3})
    res = property_regression(scores, tables, questions, kind="question")
    est = _estimated(res, POOLED, "f1")
    assert est.loc["aggregation", "ci_low"] <= -0.3 <= est.loc["aggregation", "ci_high"]
    assert bool(est.loc["aggregation", "significant"])
    assert int(est.drop(index="aggregation").significant.sum()) <= 1
    dropped = res[(res.model_name == POOLED) & res.dropped_reason.notna()].set_index("property")
    # local + global = aggregation in this data: one of the three must go
    assert "aggregation_grouping_global" in dropped.index
    assert "linear combination" in dropped.loc["aggregation_grouping_global", "dropped_reason"].iloc[0]


def test_constant_property_is_dropped_with_reason():
    tables, questions, scores = make_benchmark_inputs(150, 4, ["m1"], seed=1)
    tables["split_header_cell"] = False
    res = property_regression(scores, tables, questions)
    rows = res[res.property == "split_header_cell"]
    assert len(rows) == 4  # m1, one per registered metric: no pooled fit over a single model
    assert rows.coef.isna().all() and rows.p_value.isna().all() and not rows.significant.any()
    assert rows.dropped_reason.str.contains("constant").all()
    base = res[res.property == "standard_relational_table"]
    assert base.dropped_reason.str.contains("baseline").all()


def test_model_without_rows_gives_noted_rows(caplog):
    tables, questions, scores = make_benchmark_inputs(100, 4, ["m1"], seed=2)
    with caplog.at_level(logging.WARNING, logger="evaluation_py.analysis.regression"):
        res = property_regression(scores, tables, questions, models=["m1", "ghost"], include_logit=True)
    ghost = res[res.model_name == "ghost"]
    assert len(ghost) == 5 * len(TABLE_PROPERTY_COLUMNS)  # precision, recall, f1, cc (lpm), cc (logit)
    assert ghost.coef.isna().all()
    assert ghost.note.str.contains("no predictions").all()
    assert any("ghost" in r.getMessage() and "row_group_label" in r.getMessage() for r in caplog.records)
    # no result is a bare NaN
    bare = res.coef.isna() & res.dropped_reason.isna() & res.note.isna()
    assert not bare.any()


def test_empty_scores_and_tiny_fit_never_raise():
    tables, questions, scores = make_benchmark_inputs(50, 2, ["m1"], seed=4)
    res = property_regression(scores.iloc[0:0], tables, questions, models=["m1"])
    assert len(res) and res.coef.isna().all() and res.note.notna().all()
    def first(k):  # the score rows (every metric) of the first k predictions
        return scores[scores.cache_key.isin(scores.cache_key.unique()[:k])]

    res = property_regression(first(1), tables, questions)  # one prediction: every property constant
    assert res.dropped_reason.notna().all()
    res = property_regression(first(3), tables, questions)  # 3 predictions: estimates flagged
    est = res[res.dropped_reason.isna()]
    assert len(est) and est.note.notna().all() and not est.significant.any()
    resq = property_regression(scores, tables, None, kind="question")
    assert resq.dropped_reason.str.contains("missing").all()


def test_logit_runs_and_is_labelled():
    tables, questions, scores = make_benchmark_inputs(200, 5, ["m1"], seed=5, planted={"row_group_label": -0.3})
    res = property_regression(scores, tables, questions, include_logit=True, pooled=False)
    lg = res[(res.model_type == "logit") & res.dropped_reason.isna()].set_index("property")
    assert len(lg) > 5
    assert lg.loc["row_group_label", "coef"] < 0
    assert lg.note.str.contains("log-odds").all()


def _collinear_tables(seed=0):
    t = make_tables(300, seed=seed)
    t["split_header_cell"] = t["row_group_label"]  # exact duplicate
    # no local column aggregation: global == column_aggregation (before rules)
    t["local_column_aggregation"] = False
    t["global_column_aggregation"] = t["column_aggregation"]
    # explicit = column_aggregation - implicit: make explicit and implicit exclusive
    t["explicit_column_aggregation"] = t["column_aggregation"] & ~t["implicit_column_aggregation"]
    return t


def test_collinearity_leaves_full_rank_design():
    t = _collinear_tables()
    vals, missing = table_property_values(t, list(TABLE_PROPERTY_COLUMNS))
    design = build_design(vals.to_numpy(float), list(vals.columns), candidates=list(TABLE_PROPERTY_COLUMNS),
                          n_units=len(t))
    assert np.linalg.matrix_rank(design.X) == design.X.shape[1]
    d = design.dropped
    assert "split_header_cell" in d and "linear combination" in d["split_header_cell"]
    assert "local_column_aggregation" in d and "constant" in d["local_column_aggregation"]
    assert "column_nesting" in d and "parent" in d["column_nesting"]
    assert "symmetric_column_nesting" in d and "reference" in d["symmetric_column_nesting"]
    # explicit + implicit = global (= column_aggregation): one of them is a combination
    assert any("linear combination" in d.get(p, "") for p in
               ("global_column_aggregation", "explicit_column_aggregation", "implicit_column_aggregation"))
    # every candidate is either estimated or dropped with a reason
    assert set(design.properties) | set(d) == set(TABLE_PROPERTY_COLUMNS)
    assert not set(design.properties) & set(d)

    q = make_questions(t, 4)
    s = make_scores(t, q, ["m1", "m2"])
    res = property_regression(s, t, q)
    assert not (res.coef.isna() & res.dropped_reason.isna() & res.note.isna()).any()
    est = res[res.dropped_reason.isna()]
    assert np.isfinite(est.coef).all() and np.isfinite(est.std_err_clustered).all()


def test_consistent_synthetic_design_is_full_rank_with_fixed_effects():
    t = make_tables(400, seed=9)
    vals, _ = table_property_values(t, list(TABLE_PROPERTY_COLUMNS))
    fe = np.arange(len(t)) % 3
    design = build_design(vals.to_numpy(float), list(vals.columns), fe_codes=fe, fe_labels=["a", "b", "c"])
    assert np.linalg.matrix_rank(design.X) == design.X.shape[1]
    assert design.columns[:3] == ["intercept", "fe[b]", "fe[c]"]


def test_ols_matches_statsmodels_cluster():
    import statsmodels.api as sm
    rng = np.random.default_rng(0)
    n, g = 2000, 150
    groups = rng.integers(0, g, n)
    X = np.column_stack([np.ones(n), rng.random(n) < 0.3, rng.random(n) < 0.5, rng.normal(size=n)]).astype(float)
    y = X @ np.array([0.5, -0.2, 0.1, 0.05]) + rng.normal(0, 0.2, g)[groups] + rng.normal(0, 0.3, n)
    ours = ols_clustered(X, {"y": y}, groups)["y"]
    ref = sm.OLS(y, X).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    classic = sm.OLS(y, X).fit()
    np.testing.assert_allclose(ours.coef, ref.params, rtol=1e-9)
    np.testing.assert_allclose(ours.std_err_clustered, ref.bse, rtol=1e-8)
    np.testing.assert_allclose(ours.p_value_clustered, ref.pvalues, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(np.column_stack([ours.ci_low, ours.ci_high]), ref.conf_int(), rtol=1e-8)
    np.testing.assert_allclose(ours.std_err, classic.bse, rtol=1e-8)


def test_bh_matches_statsmodels():
    import statsmodels.stats.multitest as mt
    p = np.array([0.001, 0.2, 0.03, np.nan, 0.04, 0.9, 0.0004])
    ok = np.isfinite(p)
    ref = mt.multipletests(p[ok], method="fdr_bh")[1]
    out = bh_adjust(p)
    np.testing.assert_allclose(out[ok], ref)
    assert np.isnan(out[3])


def test_table_format_handling():
    tables, questions, scores = make_benchmark_inputs(
        120, 4, ["m1", "m2"], seed=6, table_formats={"m1": ("html", "csv")})
    prim = property_regression(scores, tables, questions, pooled=False)
    both = property_regression(scores, tables, questions, pooled=False, table_format=None)
    n_prim = prim[prim.model_name == "m1"].n_questions.iloc[0]
    assert n_prim == len(questions)
    est = both[(both.model_name == "m1") & both.dropped_reason.isna()]
    assert np.isfinite(est.coef).all()


def test_paper_mode_excludes_left_out_rows():
    tables, questions, scores = make_benchmark_inputs(100, 4, ["m1"], seed=8, scoring_modes=("strict", "paper"))
    res = property_regression(scores, tables, questions, metric_modes={"f1": "paper", "cc": "strict"}, pooled=False)
    paper = scores[(scores["scoring_mode"] == "paper") & (scores.metric == "f1")]
    n_paper = int((~paper.left_out).sum())
    assert res[res.metric == "f1"].n_questions.iloc[0] == n_paper < len(questions)
    assert res[res.metric == "cc"].n_questions.iloc[0] == len(questions)


def _with_oracle(scores):
    """The scores plus an oracle over the same questions: F1 = CC = 1 everywhere."""
    one = scores[scores.model_name == scores.model_name.iloc[0]]
    oracle = one.assign(model_name="oracle", backend="oracle", value=1.0,
                        cache_key="oracle--" + one.cache_key)
    return pd.concat([scores, oracle], ignore_index=True)


@pytest.mark.parametrize("kind", ["table", "question"])
def test_oracle_enters_no_fit_and_pooled_is_over_models_under_test(kind):
    tables, questions, scores = make_benchmark_inputs(150, 4, ["m1", "m2"], seed=9, planted={"row_group_label": -0.2})
    with_oracle = property_regression(_with_oracle(scores), tables, questions, kind=kind)
    without = property_regression(scores, tables, questions, kind=kind)
    assert "oracle" not in set(with_oracle.model_name)
    assert set(with_oracle.model_name) == {"m1", "m2", POOLED}
    pd.testing.assert_frame_equal(with_oracle, without)
    # naming the oracle does not bring it back
    named = property_regression(_with_oracle(scores), tables, questions, kind=kind, models=["m1", "oracle"])
    assert "oracle" not in set(named.model_name)


def test_one_model_under_test_has_no_pooled_rows():
    tables, questions, scores = make_benchmark_inputs(100, 4, ["m1"], seed=10)
    res = property_regression(_with_oracle(scores), tables, questions)
    assert set(res.model_name) == {"m1"}
    alone = property_regression(scores, tables, questions)
    pd.testing.assert_frame_equal(res, alone)


def test_constant_outcome_gives_a_reason_not_p_values():
    tables, questions, scores = make_benchmark_inputs(120, 4, ["m1", "m2"], seed=12)
    scores.loc[scores.model_name == "m1", "value"] = 1.0  # m1 always right, on every metric
    scores.loc[(scores.model_name == "m2") & (scores.metric == "cc"), "value"] = 0.0  # m2 never completely right
    res = property_regression(scores, tables, questions, include_logit=True)
    m1 = res[res.model_name == "m1"]
    assert len(m1) == 5 * len(TABLE_PROPERTY_COLUMNS)
    assert m1.coef.isna().all() and m1.p_value.isna().all() and m1.p_value_adjusted.isna().all()
    assert not m1.significant.any()
    estimable = m1[~m1.dropped_reason.str.contains("baseline|constant across the 120 tables|parent|reference")]
    assert len(estimable) and estimable.dropped_reason.str.startswith("outcome constant (1) across the 480").all()
    m2_cc = res[(res.model_name == "m2") & (res.metric == "cc")]
    assert m2_cc.coef.isna().all() and m2_cc.dropped_reason.str.contains("outcome constant \\(0\\)").any()
    m2_f1 = res[(res.model_name == "m2") & (res.metric == "f1") & res.dropped_reason.isna()]
    assert len(m2_f1) >= 10 and np.isfinite(m2_f1.p_value).all()
    # pooled CC: 1 for m1, 0 for m2, so the model fixed effect fits it exactly
    pooled_cc = res[(res.model_name == POOLED) & (res.metric == "cc")]
    assert pooled_cc.coef.isna().all()
    assert pooled_cc.dropped_reason.str.contains("constant within each model condition").any()
    pooled_f1 = res[(res.model_name == POOLED) & (res.metric == "f1") & res.dropped_reason.isna()]
    assert len(pooled_f1) >= 10


def test_n_counts_predictions_scored_and_n_left_out_beside_it():
    tables, questions, scores = make_benchmark_inputs(100, 4, ["m1", "m2"], seed=8, scoring_modes=("strict", "paper"))
    res = property_regression(scores, tables, questions, metric_modes={"f1": "paper", "cc": "strict"})
    paper = scores[(scores["scoring_mode"] == "paper") & (scores.metric == "f1")]
    for model in ("m1", "m2"):
        lo = int(paper[paper.model_name == model].left_out.sum())
        f1 = res[(res.model_name == model) & (res.metric == "f1")]
        assert lo > 0 and set(zip(f1.n, f1.n_left_out)) == {(len(questions) - lo, lo)}
        cc = res[(res.model_name == model) & (res.metric == "cc")]
        assert set(zip(cc.n, cc.n_left_out)) == {(len(questions), 0)}
    pooled = res[(res.model_name == POOLED) & (res.metric == "f1")]
    assert set(zip(pooled.n, pooled.n_left_out)) == {(len(paper) - int(paper.left_out.sum()), int(paper.left_out.sum()))}


def test_every_registered_metric_is_fitted_and_more_metrics_change_none():
    tables, questions, scores = make_benchmark_inputs(150, 4, ["m1", "m2"], seed=13, planted={"row_group_label": -0.2})
    every = property_regression(scores, tables, questions, include_logit=True)
    assert list(pd.unique(every.metric)) == ["precision", "recall", "f1", "cc"]
    assert set(every[every.metric.isin(["precision", "recall", "f1"])].model_type) == {"ols"}
    assert set(every[every.metric == "cc"].model_type) == {"linear_probability_ols", "logit"}
    # a fit per metric on one design: fitting precision and recall beside F1 and CC changes neither
    two = property_regression(scores, tables, questions, metric_modes={"f1": "strict", "cc": "strict"},
                              include_logit=True)
    pd.testing.assert_frame_equal(every[every.metric.isin(["f1", "cc"])].reset_index(drop=True), two,
                                  check_exact=True)
    with pytest.raises(ValueError, match="unknown metrics \\['meteor'\\]"):
        property_regression(scores, tables, questions, metric_modes={"meteor": "strict"})
