"""analysis_finetune_gain on planted scores: each fine-tuned model against its base on the questions all of them
answered, per test set, in Table VI's layout; and the entry keys that say what a model is."""
from __future__ import annotations

import datetime

import pandas as pd
import pytest

from evaluation_py.analysis.finetune_gain import finetune_gain, missing_bases, table_vi
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.dbt_glue.evaluation_inputs import entry_metadata


def _scores(model, values, source="real", left_out=None):
    n = len(values)
    return pd.DataFrame({"model_name": model, "table_format": "html", "inference_mode": "direct",
                         "scoring_mode": "strict", "metric": "f1", "source": source,
                         "question_id": [f"{source}-q{i}" for i in range(n)], "value": values,
                         "left_out": left_out if left_out is not None else [False] * n})


ENTRIES = [{"name": "llama8b", "backend": "oracle", "family": "llama-3.1", "params_b": 8},
           {"name": "llama8b-real", "backend": "oracle", "base_model": "llama8b", "finetune_set": "real",
            "splits": ["test"]},
           {"name": "llama8b-both", "backend": "oracle", "base_model": "llama8b", "finetune_set": "real_synthetic"}]


def test_the_gain_is_over_the_questions_every_model_of_the_base_answered():
    metadata = entry_metadata(repr(ENTRIES), "'this_build'")
    scores = pd.concat([
        _scores("llama8b", [0.2, 0.4, 0.6, 1.0]),  # q3 is answered by the base only: left out of every mean
        _scores("llama8b-real", [0.5, 0.5, 1.0]),
        _scores("llama8b-both", [1.0, 1.0, 0.0], left_out=[False, False, True]),  # q2 left out: not common
        _scores("llama8b", [0.0, 0.0], source="synthetic"), _scores("llama8b-both", [1.0, 0.5], source="synthetic"),
        _scores("other", [1.0, 1.0, 1.0])])
    gain = finetune_gain(scores, metadata)
    real = gain[gain["test_set"] == "real"].set_index("model_name")
    assert list(real.index) == ["llama8b", "llama8b-real", "llama8b-both"]  # base first, then the sets' order
    assert (real["n_questions"] == 2).all() and real.at["llama8b", "finetune_set"] == "none"
    assert real.at["llama8b", "value"] == pytest.approx(0.3) and real.at["llama8b", "gain"] == 0
    assert real.at["llama8b-real", "gain"] == pytest.approx(0.2) and real.at["llama8b-both", "gain"] == pytest.approx(0.7)
    synthetic = gain[gain["test_set"] == "synthetic"].set_index("model_name")
    assert list(synthetic.index) == ["llama8b", "llama8b-both"]  # llama8b-real answered no synthetic question
    assert synthetic.at["llama8b-both", "gain"] == pytest.approx(0.75)
    wide = table_vi(gain).set_index("model_name")
    assert wide.at["llama8b-both", "real f1"] == pytest.approx(1.0)
    assert wide.at["llama8b-both", "synthetic gain"] == pytest.approx(0.75)
    assert pd.isna(wide.at["llama8b-real", "synthetic f1"])
    assert list(wide.columns[-4:]) == ["real f1", "real gain", "synthetic f1", "synthetic gain"]


def test_without_fine_tuned_entries_or_a_scored_base_there_is_nothing_to_show():
    plain = entry_metadata(repr(ENTRIES[:1]), "'this_build'")
    assert finetune_gain(_scores("llama8b", [1.0]), plain).empty
    metadata = entry_metadata(repr(ENTRIES), "'this_build'")
    tuned_only = _scores("llama8b-real", [1.0])
    assert finetune_gain(tuned_only, metadata).empty and missing_bases(tuned_only, metadata) == ["llama8b-real"]
    assert list(finetune_gain(pd.DataFrame(), metadata).columns) == list(finetune_gain(tuned_only, metadata).columns)


def test_entry_metadata_keeps_what_is_said_and_leaves_the_rest_unknown():
    entries = [{"name": "g9", "backend": "oracle", "family": "gemma-2", "params_b": 9,
                "release_date": datetime.date(2024, 6, 27)},
               {"name": "g2", "backend": "oracle", "release_date": "2024-07-31"}]
    meta = entry_metadata(repr(entries).replace("datetime.date(2024, 6, 27)", "'2024-06-27'"), "'this_build'")
    meta = meta.set_index("model_name")
    assert meta.at["g9", "params_b"] == 9.0 and meta.at["g9", "family"] == "gemma-2"
    assert meta.at["g2", "release_date"] == "2024-07-31" and pd.isna(meta.at["g2", "family"])
    assert pd.isna(meta.at["g2", "params_b"]) and meta.loc[["g9", "g2"], "base_model"].isna().all()
    assert parse_eval_models(entries)[0].metadata["release_date"] == "2024-06-27"  # a YAML date as well
    # the keys say nothing about the answers: the requests' cache keys do not change
    from evaluation_py.running.requests import build_requests
    questions = pd.DataFrame({"question_id": ["q1"], "table_id": ["t1"], "source": ["synthetic"],
                              "question": ["How many?"], "answer_gt": ["{1}"]})
    tables = pd.DataFrame({"table_id": ["t1"], "html": ["<table></table>"]})
    (bare,) = parse_eval_models([{"name": "g9", "backend": "oracle"}])
    (said,) = parse_eval_models(entries[:1])
    assert [r.cache_key for r in build_requests(bare, questions, tables, 1)] == \
        [r.cache_key for r in build_requests(said, questions, tables, 1)]


@pytest.mark.parametrize("extra, message", [
    ({"family": ""}, r"key `family` '' must be a non-empty name"),
    ({"params_b": -1}, r"key `params_b` -1 must be a positive number"),
    ({"params_b": True}, r"key `params_b` True must be a positive number"),
    ({"release_date": "June 2024"}, r"key `release_date` 'June 2024' must be a date YYYY-MM-DD"),
    ({"release_date": "2024-13-01"}, r"key `release_date` '2024-13-01' must be a date"),
    ({"base_model": "base"}, r"keys `base_model` and `finetune_set` go together"),
    ({"finetune_set": "real"}, r"keys `base_model` and `finetune_set` go together"),
    ({"base_model": "base", "finetune_set": "both"}, r"key `finetune_set` 'both' must be one of real, synthetic, "
                                                     r"real_synthetic"),
    ({"base_model": "tuned", "finetune_set": "real"}, r"key `base_model` names the entry itself"),
    ({"base_model": "nobody", "finetune_set": "real"}, r"key `base_model` 'nobody' names no entry of eval_models"),
])
def test_bad_metadata_names_the_entry_and_the_key(extra, message):
    with pytest.raises(ValueError, match=r"eval_models entry 2 \(.*'tuned'.*\): " + message):
        parse_eval_models([{"name": "base", "backend": "oracle"}, {"name": "tuned", "backend": "oracle", **extra}])


def test_the_report_shows_the_gain_or_says_what_would(tmp_path):
    from pathlib import Path

    from evaluation_py.analysis.report_build import report_sections

    metadata = entry_metadata(repr(ENTRIES), "'this_build'")
    scores = pd.concat([_scores("llama8b", [0.2, 0.4]), _scores("llama8b-real", [0.5, 0.5])])
    gain = finetune_gain(scores, metadata)
    scores = scores.assign(backend="openai", table_id=scores["question_id"], model=scores["model_name"])
    sections, unanswered = report_sections({"finetune_gain": gain}, scores, tmp_path)
    (section,) = [s for s in sections if s.key == "finetune_gain"]
    assert Path(section.figures[0][0]).stat().st_size > 0
    shown = section.tables[0].frame.set_index("model_name")
    assert shown.at["llama8b-real", "real gain"] == pytest.approx(0.2) and "analysis_finetune_gain" in section.tables[0].sql
    assert "Does fine-tuning help?" not in [u.title for u in unanswered]
    _, unanswered = report_sections({"finetune_gain": gain.iloc[:0]}, scores, tmp_path)
    assert "Does fine-tuning help?" in [u.title for u in unanswered]
