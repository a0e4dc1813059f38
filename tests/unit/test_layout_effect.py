"""analysis_layout_effect on planted scores (evaluation_py.analysis.layout_effect): the pairing of a toggle's question
with its base's, the causal effect's sign and set-clustered interval, and the observational estimates beside it."""
import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis.layout_effect import LAYOUT_EFFECT_COLUMNS, layout_effects, layout_pairs, plot_layout_effects

N_SETS, N_QUESTIONS = 30, 8


def _benchmark(props=("row_aggregation",), has=True):
    """N_SETS bases with one toggle per property (the toggle has the property when `has`), N_QUESTIONS each."""
    tables, questions = [], []
    for s in range(N_SETS):
        base = f"b{s}"
        flag = s % 2 == 0  # half the originals have the property (observational contrast)
        tables.append({"table_id": base, "counterfactual_set_id": f"{base}--cf", "counterfactual_property": None,
                       "counterfactual_has_property": None, **{p: (not has) if p != "borders" else None
                                                                for p in props}, "split_header_cell": flag})
        for k in range(N_QUESTIONS):
            questions.append({"question_id": f"{base}--q{k}", "variant": "original",
                              "original_question_id": f"{base}--q{k}", "table_id": base})
        for p in props:
            toggle = f"{base}--cf--{p}"
            tables.append({"table_id": toggle, "counterfactual_set_id": f"{base}--cf", "counterfactual_property": p,
                           "counterfactual_has_property": has, p: has, "split_header_cell": flag})
            for k in range(N_QUESTIONS):
                questions.append({"question_id": f"{toggle}--q{k}", "variant": "counterfactual",
                                  "original_question_id": f"{base}--q{k}", "table_id": toggle})
    return pd.DataFrame(tables), pd.DataFrame(questions)


def _scores(questions, value_of, models=("m",), metric="cc"):
    rows = []
    for m in models:
        for q in questions.itertuples():
            rows.append({"model_name": m, "backend": "replay", "table_format": "html", "inference_mode": "direct",
                         "scoring_mode": "strict", "metric": metric, "question_id": q.question_id,
                         "table_id": q.table_id, "value": float(value_of(m, q)), "left_out": False})
    return pd.DataFrame(rows)


def test_a_planted_effect_is_found_with_its_sign_and_an_interval_excluding_zero():
    tables, questions = _benchmark()
    rng = np.random.default_rng(3)
    correct = {q: rng.random() < 0.8 for q in questions["question_id"]}
    lost = {q: rng.random() < 0.35 for q in questions["question_id"]}
    # with aggregate rows the model loses about a third of its right answers on the toggles
    value = lambda m, q: correct[q.question_id] and not (q.variant == "counterfactual" and lost[q.question_id])
    out = layout_effects(_scores(questions, value), questions, tables, seed=1)
    row = out.set_index("property").loc["row_aggregation"]
    assert row["effect"] < 0 and row["ci_high"] < 0 and row["p_value"] < 0.05
    assert row["effect"] == pytest.approx(row["mean_with"] - row["mean_without"])
    assert (row["n_pairs"], row["n_sets"]) == (N_SETS * N_QUESTIONS, N_SETS)
    assert list(out.columns) == LAYOUT_EFFECT_COLUMNS


def test_the_pair_orientation_follows_which_layout_has_the_property():
    tables, questions = _benchmark(has=False)  # the bases have the property, the toggles lack it
    value = lambda m, q: q.variant == "counterfactual"  # right only without the property
    row = layout_effects(_scores(questions, value), questions, tables, seed=1).iloc[0]
    assert (row["effect"], row["mean_with"], row["mean_without"]) == (-1.0, 0.0, 1.0)
    pairs = layout_pairs(_scores(questions, value), questions, tables)
    assert len(pairs) == N_SETS * N_QUESTIONS and (pairs["value_with"] == 0).all()


def test_identical_layouts_give_an_effect_of_zero_with_an_interval_holding_zero():
    tables, questions = _benchmark(props=("borders",))
    rng = np.random.default_rng(5)
    answers = {f"b{s}--q{k}": rng.random() for s in range(N_SETS) for k in range(N_QUESTIONS)}
    value = lambda m, q: answers[q.question_id.replace("--cf--borders", "")]  # the same answer on both layouts
    row = layout_effects(_scores(questions, value, metric="f1"), questions, tables, seed=1).iloc[0]
    assert row["effect"] == 0.0 and row["ci_low"] <= 0.0 <= row["ci_high"]
    assert np.isnan(row["observational_difference"])  # no flag column for the rules


def test_left_out_and_unpaired_questions_make_no_pair():
    tables, questions = _benchmark()
    scores = _scores(questions, lambda m, q: 1)
    scores.loc[scores["question_id"] == "b0--q0", "left_out"] = True
    scores = scores[scores["question_id"] != "b1--cf--row_aggregation--q1"]
    assert len(layout_pairs(scores, questions, tables)) == N_SETS * N_QUESTIONS - 2


def test_observational_estimates_stand_beside_the_causal_one():
    tables, questions = _benchmark(props=("split_header_cell",))
    # the originals with a split corner score higher (their content is easier); the corner itself does nothing
    base_of = dict(zip(tables["table_id"], tables["split_header_cell"]))
    value = lambda m, q: 0.9 if base_of[q.original_question_id.split("--")[0]] else 0.4
    regression = pd.DataFrame([{"model_name": "m", "metric": "cc", "property": "split_header_cell", "coef": 0.45,
                                "ci_low": 0.3, "ci_high": 0.6, "p_value_adjusted": 0.001, "property_kind": "table",
                                "dropped_reason": None}])
    row = layout_effects(_scores(questions, value), questions, tables, regression, seed=1).iloc[0]
    assert row["effect"] == 0.0
    assert row["observational_difference"] == pytest.approx(0.5)
    assert row["observational_difference_ci_low"] > 0.4
    assert (row["observational_coef"], row["observational_p_value_adjusted"]) == (0.45, 0.001)


def test_no_sets_no_rows_and_the_figure(tmp_path):
    tables, questions = _benchmark()
    empty = layout_effects(_scores(questions, lambda m, q: 1).iloc[:0], questions, tables)
    assert empty.empty and list(empty.columns) == LAYOUT_EFFECT_COLUMNS
    effects = layout_effects(_scores(questions, lambda m, q: q.variant == "original", models=("a", "b")), questions,
                             tables, seed=1)
    assert plot_layout_effects(effects, tmp_path, ["b", "a"], metric="cc").endswith("layout_effect.png")
    assert plot_layout_effects(effects, tmp_path, ["z"], metric="cc") is None


def test_the_report_shows_the_three_sections_for_a_model_under_test(tmp_path):
    from pathlib import Path

    from evaluation_py.analysis.report_build import report_sections
    from evaluation_py.analysis.seed_variance import seed_leaderboards, seed_variance

    tables, questions = _benchmark(props=("row_aggregation", "borders"))
    scores = _scores(questions, lambda m, q: q.variant == "original", models=("matcher", "header_match"),
                     metric="f1")
    boards = pd.DataFrame([{"model_name": m, "backend": "replay", "table_format": "html", "inference_mode": "direct",
                            "scoring_mode": "strict", "metric": "f1", "mean": v, "ci_low": v - 0.02,
                            "ci_high": v + 0.02, "fingerprint": f"f{s}"}
                           for m in ("matcher", "header_match") for s, v in ((1, 0.5), (2, 0.55), (3, 0.52))])
    consistency = pd.DataFrame([{"model_name": "matcher", "backend": "replay", "table_format": "html",
                                 "inference_mode": "direct", "scoring_mode": "strict", "metric": "f1", "n_sets": 10,
                                 "n_tables": 5, "phrasings_per_set": 3.0, "share_identical": 0.7,
                                 "share_identical_ci_low": 0.6, "share_identical_ci_high": 0.8, "mean_value": 0.5,
                                 "share_same_score": 0.8, "mean_range": 0.1, "mean_range_ci_low": 0.05,
                                 "mean_range_ci_high": 0.15, "mean_sd": 0.05}])
    frames = {"layout_effect": layout_effects(scores, questions, tables, seed=1),
              "paraphrase_consistency": consistency,
              "seed_variance": seed_variance(seed_leaderboards(boards, {1: "f1", 2: "f2", 3: "f3"}), [1, 2, 3])}
    sections, unanswered = report_sections(frames, scores, tmp_path)
    by_key = {s.key: s for s in sections}
    for key in ("layout_effect", "paraphrase_consistency", "seed_variance"):
        assert Path(by_key[key].figures[0][0]).is_file(), key
        assert len(by_key[key].tables[0].frame), key
    effect = by_key["layout_effect"].tables[0].frame.set_index("property")
    assert effect.at["row_aggregation", "effect"] == -1.0 and set(effect["model_name"]) == {"matcher"}
    assert list(by_key["layout_effect"].tables[1].frame["model_name"].unique()) == ["header_match"]
    needed = by_key["seed_variance"].tables[1].frame
    assert (needed["seeds for a difference of 0.01"] >= needed["seeds for a difference of 0.05"]).all()
    # the baselines alone answer no causal or wording question; the seeds' spread is the benchmark's own
    only_baselines = {k: v[v["model_name"] == "header_match"] for k, v in frames.items()}
    sections, unanswered = report_sections(only_baselines, scores[scores["model_name"] == "header_match"], tmp_path)
    assert {s.key for s in sections} >= {"seed_variance"}
    assert {"Does a layout property cause the errors?", "Does the wording change the answer?"} <= {
        u.title for u in unanswered}
