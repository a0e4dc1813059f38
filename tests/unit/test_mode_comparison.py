"""The inference-mode analyses on hand-made scores, executions and episodes (values checked by hand)."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.analysis.mode_comparison import episode_turns, execution_errors, mode_gains, scores_by_mode_family


def scores() -> pd.DataFrame:
    rows = []
    # q1, q2: family q05 (computation); q3: a real question (no family). f1 per mode:
    values = {"direct": [0, 0, 1], "tcot": [1, 0, 1], "pot": [1, 1, 0], "icot": [1, 1, 1]}
    for mode, vals in values.items():
        for qid, v in zip(["q1", "q2", "q3"], vals):
            for scoring_mode in ("strict", "paper"):
                rows.append({"cache_key": f"{mode}-{qid}", "model_name": "m", "backend": "openai", "model": "x",
                             "table_format": "html", "inference_mode": mode, "scoring_mode": scoring_mode,
                             "question_id": qid, "metric": "f1", "value": float(v), "left_out": False,
                             "unanswered": False})
    return pd.DataFrame(rows)


QUESTIONS = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "family": ["q05", "q05", None]})


def test_scores_by_mode_family_and_the_gains_of_the_code_modes():
    by = scores_by_mode_family(scores(), QUESTIONS)
    strict = by[by["scoring_mode"] == "strict"].set_index(["inference_mode", "family"])
    assert strict.loc[("direct", "q05"), "value"] == 0.0 and strict.loc[("pot", "q05"), "value"] == 1.0
    assert strict.loc[("tcot", "real"), "value"] == 1.0 and strict.loc[("pot", "real"), "n"] == 1
    gains = mode_gains(by)
    g = gains[gains["scoring_mode"] == "strict"].set_index(["inference_mode", "baseline_mode", "family"])
    assert len(g) == 2 * 2 * 2  # pot, icot x direct, tcot x two families
    assert g.loc[("pot", "direct", "q05"), "gain"] == 1.0 and g.loc[("pot", "tcot", "q05"), "gain"] == 0.5
    assert g.loc[("pot", "tcot", "real"), "gain"] == -1.0 and g.loc[("icot", "direct", "real"), "gain"] == 0.0
    assert (g["n"] == g["baseline_n"]).all()


def test_the_gains_per_treb_skill_compare_the_skill_rows_of_each_mode():
    from evaluation_py.analysis.treb_skills import scores_by_treb_skill

    q = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "family": ["welch_test", "ms_retrieval", "ms_retrieval"],
                      "treb_skill": ["DA", "ADA", "ADA"],
                      "treb_subtask": ["hypothesis_testing", "multi_step_retrieval", "multi_step_retrieval"],
                      "treb_metric": ["exact_match"] * 3})
    sc = scores().assign(table_id=lambda d: d["question_id"], metric="exact_match")
    by_skill = scores_by_treb_skill(sc, q, seed=0, n_boot=20)
    gains = mode_gains(scores_by_mode_family(sc, q), by_skill)
    assert set(gains["level"]) == {"family", "treb_skill"}
    skill = gains[(gains["level"] == "treb_skill") & (gains["scoring_mode"] == "strict")]
    assert skill["family"].isna().all() and set(skill["metric"]) == {"treb_metric"}
    g = skill.set_index(["inference_mode", "baseline_mode", "treb_skill"])
    means = by_skill[by_skill["treb_subtask"].isna() & (by_skill["scoring_mode"] == "strict")].set_index(
        ["inference_mode", "treb_skill"])["mean"]
    for (mode, base, sk), row in g.iterrows():
        assert row["gain"] == pytest.approx(means[(mode, sk)] - means[(base, sk)])
    assert set(g.index.get_level_values("treb_skill")) == {"DA", "ADA"} and len(g) == 2 * 2 * 2
    fam = gains[gains["level"] == "family"]
    assert fam["treb_skill"].isna().all() and fam["family"].notna().all()


def test_execution_error_rates_by_kind_per_run_and_per_prediction():
    ex = pd.DataFrame({"cache_key": ["a", "b", "c", "c", "c"], "model_name": "m",
                       "inference_mode": ["pot", "pot", "icot", "icot", "icot"], "sandbox": "bubblewrap",
                       "error_kind": ["syntax", None, "runtime", "runtime", None]})
    out = execution_errors(ex).set_index(["inference_mode", "outcome"])
    assert out.loc[("pot", "syntax"), "share_of_runs"] == 0.5 and out.loc[("pot", "ok"), "n_runs"] == 1
    assert out.loc[("icot", "runtime"), "n_runs"] == 2 and out.loc[("icot", "runtime"), "n_predictions"] == 1
    assert out.loc[("icot", "runtime"), "share_of_runs"] == pytest.approx(2 / 3)
    assert out.loc[("icot", "ok"), "share_of_predictions"] == 1.0
    assert len(execution_errors(ex.iloc[:0])) == 0


def test_episode_turns_count_turns_and_how_episodes_ended():
    preds = pd.DataFrame({"model_name": "m", "inference_mode": ["icot", "icot", "icot", "direct"],
                          "turn": [0, 2, 2, 0],
                          "response": ["Final answer: 3", "```python\nprint(1)\n```", "so\nFINAL ANSWER: x", "3"]})
    out = episode_turns(preds, ["icot"])
    assert out[["turns_used", "ended_at_final_answer", "n_episodes"]].values.tolist() == [
        [1, True, 1], [3, False, 1], [3, True, 1]]
    assert out["share_of_episodes"].sum() == pytest.approx(1.0)


def test_the_mode_figures_are_written_and_captioned(tmp_path):
    from evaluation_py.analysis.mode_plots import mode_figures

    ex = pd.DataFrame({"cache_key": ["a", "b"], "model_name": "m", "inference_mode": "pot", "sandbox": "bubblewrap",
                       "error_kind": ["syntax", None]})
    frames = {"by_mode_family": scores_by_mode_family(scores(), QUESTIONS), "execution_errors": execution_errors(ex)}
    figs = mode_figures(frames, tmp_path)
    assert [p.rsplit("/", 1)[-1] for p, _ in figs] == ["modes_by_family_f1.png", "execution_outcomes.png"]
    for path, caption in figs:
        assert (tmp_path / path.rsplit("/", 1)[-1]).stat().st_size > 5000 and caption
    empty = mode_figures({"execution_errors": execution_errors(ex.iloc[:0])}, tmp_path / "e")
    assert len(empty) == 1 and (tmp_path / "e" / "execution_outcomes.png").exists()
    assert mode_figures({}, tmp_path / "none") == []
