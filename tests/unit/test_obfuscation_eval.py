"""The obfuscated variant on the evaluation side: the `variants` entry key, question selection in pairs,
the var obfuscated_variants, the gap figure."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.analysis.obfuscation_gap import plot_obfuscation_gap
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.running.requests import select_questions
from generator_py.dbt_glue.build_config import build_fingerprint, check_vars


def _questions(n=40):
    ids = [f"syn--d--t--v{i:04d}--r1" for i in range(n)]
    rows = [(t + "--q01", t, "synthetic", "original", t + "--q01") for t in ids]
    rows += [(t + "--obf--q01", t + "--obf", "synthetic", "obfuscated", t + "--q01") for t in ids]
    rows += [("real--1--q1", "real--1", "real", "original", "real--1--q1")]
    return pd.DataFrame(rows, columns=["question_id", "table_id", "source", "variant", "original_question_id"])


def _spec(**entry):
    return parse_eval_models([{"name": "o", "backend": "oracle", **entry}])[0]


def test_variants_default_to_the_originals_and_are_checked():
    assert _spec().variants == ("original",)
    assert _spec(variants=["original", "obfuscated"]).variants == ("original", "obfuscated")
    for bad in (["scrambled"], [], ["original", "original"], 3):
        with pytest.raises(ValueError, match=r"eval_models entry 1 .*key `variants`"):
            _spec(variants=bad)


def test_obfuscated_twins_are_not_asked_as_images():
    with pytest.raises(ValueError, match="obfuscated twins have no images"):
        _spec(formats=["html", "image"], variants=["original", "obfuscated"])
    assert _spec(formats=["html", "image"]).variants == ("original",)


def test_the_sample_is_drawn_from_the_originals_and_twins_come_with_it():
    q = _questions()
    plain = select_questions(_spec(sample=10), q, 42)
    both = select_questions(_spec(sample=10, variants=["original", "obfuscated"]), q, 42)
    twins = select_questions(_spec(sample=10, variants=["obfuscated"]), q, 42)
    assert (plain["variant"] == "original").all() and len(plain) == 10
    assert set(both.loc[both["variant"] == "original", "question_id"]) == set(plain["question_id"])
    assert set(both.loc[both["variant"] == "obfuscated", "original_question_id"]) == set(plain["question_id"])
    assert len(both) == 20 and set(twins["question_id"]) == set(both["question_id"]) - set(plain["question_id"])
    # without the columns (frames built by hand), selection is as before
    assert len(select_questions(_spec(sample=10), q.drop(columns=["variant", "original_question_id"]), 42)) == 10


def test_every_question_without_a_sample_and_sources_apply_to_the_originals():
    q = _questions()
    assert len(select_questions(_spec(), q, 1)) == 41
    assert len(select_questions(_spec(variants=["original", "obfuscated"]), q, 1)) == 81
    assert len(select_questions(_spec(sources=["real"], variants=["original", "obfuscated"]), q, 1)) == 1


def test_var_obfuscated_variants_is_checked_and_only_off_changes_the_fingerprint():
    with pytest.raises(ValueError, match="var obfuscated_variants must be true or false"):
        check_vars({"seed": "42", "obfuscated_variants": "'yes'"})
    on = check_vars({"seed": "42"})
    off = check_vars({"seed": "42", "obfuscated_variants": "False"})
    assert on["obfuscated_variants"] is True and off["obfuscated_variants"] is False
    without = {k: v for k, v in on.items() if k != "obfuscated_variants"}
    assert build_fingerprint(on, {}) == build_fingerprint(without, {}) != build_fingerprint(off, {})


def test_gap_figure_only_when_a_model_answered_both(tmp_path):
    gap = pd.DataFrame([{"model_name": "m", "backend": "openai", "model": "x", "table_format": "html",
                         "inference_mode": "direct", "scoring_mode": "strict", "metric": "f1", "n_pairs": 5,
                         "value_original": 0.6, "value_obfuscated": 0.55, "gap": 0.05}])
    path = plot_obfuscation_gap(gap, tmp_path)
    assert path and (tmp_path / "obfuscation_gap.png").stat().st_size > 0
    assert plot_obfuscation_gap(gap.iloc[0:0], tmp_path / "none") is None
    assert plot_obfuscation_gap(gap, tmp_path / "paper", scoring_mode="paper") is None
