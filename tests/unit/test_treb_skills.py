"""TReB skills and subtasks: what the families declare, and the per-subtask scores with table-clustered
intervals (evaluation_py.analysis.treb_skills) and their report section."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis.report_build import report_sections
from evaluation_py.analysis.treb_skills import COLUMNS, scores_by_treb_skill
from evaluation_py.scoring.metrics import METRICS
from generator_py.questions.families import ALL_FAMILIES
from generator_py.questions.treb_skills import SUBTASKS, declared_subtasks


def test_every_built_in_family_declares_a_treb_subtask_and_a_registered_metric():
    for f in ALL_FAMILIES:
        assert f.treb_subtask in SUBTASKS[f.treb_skill], f.family_id
        assert f.treb_metric in METRICS, (f.family_id, f.treb_metric)
        assert (f.treb_metric == "rouge_l") == (f.answer_type == "text"), f.family_id
    declared = declared_subtasks(ALL_FAMILIES)
    assert len(declared) == len(set(declared)) >= 5
    by_family = {f.family_id: (f.treb_skill, f.treb_subtask) for f in ALL_FAMILIES}
    assert by_family["q01"] == ("TU", "table_retrieval") and by_family["q14"] == ("TBO", "table_selection")
    assert by_family["stdev"] == by_family["q04"] == ("TCO", "general_operations")


def _questions():
    return pd.DataFrame({
        "question_id": ["a", "b", "c", "d", "e", "a-obf"],
        "treb_skill": ["TU", "TU", "TU", "TCO", None, "TU"],
        "treb_subtask": ["table_retrieval"] * 3 + ["general_operations", None, "table_retrieval"],
        "treb_metric": ["exact_match"] * 3 + ["rouge_l", "exact_match", "exact_match"],
        "variant": ["original"] * 5 + ["obfuscated"]})


def _scores(values: dict, model="m", mode="strict", left_out=()):
    tables = {"a": "t1", "b": "t1", "c": "t2", "d": "t2", "e": "t3", "a-obf": "t9"}
    rows = []
    for metric in ("exact_match", "f1", "rouge_l"):
        for qid, v in values.items():
            rows.append(dict(model_name=model, backend="x", table_format="html", inference_mode="direct",
                             scoring_mode=mode, metric=metric, question_id=qid, table_id=tables[qid],
                             value=v if metric != "f1" else 0.5, left_out=qid in left_out))
    return pd.DataFrame(rows)


def test_each_subtask_is_scored_by_its_own_metric_with_a_table_interval():
    scores = _scores({"a": 1.0, "b": 1.0, "c": 0.0, "d": 0.25, "e": 1.0, "a-obf": 0.0})
    out = scores_by_treb_skill(scores, _questions(), seed=3, n_boot=200)
    assert list(out.columns) == COLUMNS
    got = {r.treb_subtask: r for r in out.itertuples() if isinstance(r.treb_subtask, str)}
    assert set(got) == {"table_retrieval", "general_operations"}  # no subtask: not reported
    tr = got["table_retrieval"]
    # the obfuscated twin and the f1 rows are not in it; two tables: one all right, one all wrong
    assert (tr.metric, tr.mean, tr.n_questions, tr.n_tables) == ("exact_match", pytest.approx(2 / 3), 3, 2)
    assert tr.ci_low == pytest.approx(0.0) and tr.ci_high == pytest.approx(1.0)
    go = got["general_operations"]
    assert (go.metric, go.mean, go.ci_low, go.ci_high) == ("rouge_l", 0.25, 0.25, 0.25)
    again = scores_by_treb_skill(scores, _questions(), seed=3, n_boot=200)
    pd.testing.assert_frame_equal(out, again)


def test_a_skill_row_averages_its_subtasks_alike_with_a_table_interval():
    q = pd.DataFrame({"question_id": list("abcde"), "treb_skill": ["DA"] * 4 + ["ADA"],
                      "treb_subtask": ["outlier_detection"] * 3 + ["hypothesis_testing", "multi_step_retrieval"],
                      "treb_metric": ["exact_match"] * 5})
    tables = {"a": "t1", "b": "t2", "c": "t3", "d": "t4", "e": "t5"}
    scores = pd.DataFrame([dict(model_name="m", backend="x", table_format="html", inference_mode=mode,
                                scoring_mode="strict", metric="exact_match", question_id=qid, table_id=tables[qid],
                                value=v, left_out=False)
                           for mode, values in (("direct", (1, 1, 1, 0, 0)), ("pot", (0, 0, 1, 1, 1)))
                           for qid, v in zip("abcde", values)])
    out = scores_by_treb_skill(scores, q, seed=1, n_boot=300)
    skills = {(r.inference_mode, r.treb_skill): r for r in out.itertuples() if not isinstance(r.treb_subtask, str)}
    assert set(skills) == {(m, s) for m in ("direct", "pot") for s in ("DA", "ADA")}
    da = skills[("direct", "DA")]
    # outlier detection 3/3, hypothesis testing 0/1: the skill is their mean, 0.5, not the pooled 3/4
    assert (da.metric, da.mean, da.n_questions, da.n_tables, da.n_subtasks) == ("treb_metric", 0.5, 4, 4, 2)
    assert 0.0 <= da.ci_low <= 0.5 <= da.ci_high <= 1.0
    assert skills[("pot", "DA")].mean == pytest.approx((1 / 3 + 1) / 2) and skills[("pot", "ADA")].mean == 1.0
    # the subtask rows say they are one subtask each
    assert set(out.loc[out["treb_subtask"].notna(), "n_subtasks"]) == {1}


def test_paper_mode_left_out_predictions_are_counted_apart():
    scores = _scores({"a": 1.0, "b": 0.0, "c": 1.0}, mode="paper", left_out={"b"})
    out = scores_by_treb_skill(scores, _questions(), seed=0, n_boot=50)
    row = out[out["treb_subtask"].notna()].iloc[0]
    assert (row["mean"], row["n_questions"], row["n_left_out"]) == (1.0, 2, 1)


def test_questions_without_the_columns_are_a_clear_error():
    with pytest.raises(ValueError, match="lack column.*treb_metric"):
        scores_by_treb_skill(_scores({"a": 1.0}), _questions().drop(columns="treb_metric"), seed=0)


def test_the_report_has_a_section_with_a_figure_per_subtask_and_the_baselines_apart(tmp_path):
    q = _questions()
    scores = pd.concat([_scores({"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.5}),
                        _scores({"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}, model="oracle")], ignore_index=True)
    frame = scores_by_treb_skill(scores, q, seed=0, n_boot=50)
    sections, unanswered = report_sections({"by_treb_skill": frame}, scores, tmp_path)
    section = next(s for s in sections if s.key == "treb_skills")
    (skill_fig, _), (fig, caption) = section.figures
    assert skill_fig.endswith("treb_skill_means.png") and (tmp_path / "treb_skill_means.png").stat().st_size > 0
    assert fig.endswith("treb_skills.png") and (tmp_path / "treb_skills.png").stat().st_size > 0
    under, base = section.tables
    assert set(under.frame["model_name"]) == {"m"} and set(base.frame["model_name"]) == {"oracle"}
    assert np.allclose(base.frame["mean"], 1.0)
    assert "analysis_scores_by_treb_skill" in under.sql
    # the baselines alone fill no section: the report says what would
    alone = frame[frame["model_name"] == "oracle"]
    none, unanswered = report_sections({"by_treb_skill": alone}, scores[scores["model_name"] == "oracle"],
                                       tmp_path / "b")
    assert "treb_skills" not in {s.key for s in none}
    assert any(u.title == "Which TReB skills and subtasks are hard?" for u in unanswered)


def test_the_section_shows_the_consistency_across_perturbed_views_where_there_is_some(tmp_path):
    q = _questions()
    scores = _scores({"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.5})
    frame = scores_by_treb_skill(scores, q, seed=0, n_boot=50)
    consistency = pd.DataFrame([("m", "direct", "html", "permute_rows", 0.75, 0.5, 1.0, 0.8, 0.7, 4, 4)],
                               columns=["model_name", "inference_mode", "table_format", "view", "consistency",
                                        "ci_low", "ci_high", "accuracy_original", "accuracy_view", "n_groups",
                                        "n_tables"])
    sections, _ = report_sections({"by_treb_skill": frame, "robustness_consistency": consistency}, scores, tmp_path)
    tables = next(s for s in sections if s.key == "treb_skills").tables
    shown = next(t for t in tables if "analysis_robustness_consistency" in t.sql)
    assert shown.frame[["view", "consistency", "interval"]].values.tolist() == [["permute_rows", 0.75, "[0.500, 1.000]"]]
    without, _ = report_sections({"by_treb_skill": frame}, scores, tmp_path / "b")
    assert not any("analysis_robustness_consistency" in t.sql
                   for t in next(s for s in without if s.key == "treb_skills").tables)


def test_the_modes_section_shows_each_skill_per_mode_and_the_gains_per_skill(tmp_path):
    from evaluation_py.analysis.mode_comparison import mode_gains, scores_by_mode_family

    q = _questions().assign(family=["q01", "q02", "q03", "stdev", None, "q01"])
    scores = pd.concat([_scores({"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.5}).assign(inference_mode=mode)
                        for mode in ("direct", "pot")], ignore_index=True)
    by_skill = scores_by_treb_skill(scores, q, seed=0, n_boot=50)
    by_family = scores_by_mode_family(scores, q)
    frames = {"by_treb_skill": by_skill, "by_mode_family": by_family, "mode_gains": mode_gains(by_family, by_skill)}
    sections, _ = report_sections(frames, scores, tmp_path)
    modes = next(s for s in sections if s.key == "modes")
    assert [f.rsplit("/", 1)[-1] for f, _ in modes.figures] == ["modes_by_family_f1.png", "modes_by_treb_skill.png"]
    assert (tmp_path / "modes_by_treb_skill.png").stat().st_size > 0
    per_skill = next(t for t in modes.tables if "level = 'treb_skill'" in t.sql)
    assert set(per_skill.frame["treb_skill"]) == {"TU", "TCO"} and (per_skill.frame["gain"] == 0).all()
