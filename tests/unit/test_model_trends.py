"""analysis_scores_by_model_size and analysis_scores_over_time on planted scores: the slope of F1 per billion
parameters within a family with its interval, successive releases' changes, and unknown metadata said, not guessed."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis.model_trends import scores_by_model_size, scores_over_time
from evaluation_py.dbt_glue.evaluation_inputs import entry_metadata


def _scores(means: dict[str, list[float]]) -> pd.DataFrame:
    rows = []
    for model, values in means.items():
        for i, v in enumerate(values):
            rows.append({"model_name": model, "backend": "openai", "model": model, "table_format": "html",
                         "inference_mode": "direct", "scoring_mode": "strict", "metric": "f1", "question_id": f"q{i}",
                         "table_id": f"t{i}", "value": v, "left_out": False})
    return pd.DataFrame(rows)


ENTRIES = [
    {"name": "g2", "backend": "oracle", "family": "gemma-2", "params_b": 2, "release_date": "2024-07-31"},
    {"name": "g9", "backend": "oracle", "family": "gemma-2", "params_b": 9, "release_date": "2024-06-27"},
    {"name": "g27", "backend": "oracle", "family": "gemma-2", "params_b": 27, "release_date": "2024-06-27"},
    {"name": "g-new", "backend": "oracle", "family": "gemma-2"},  # neither size nor date: said, not guessed
    {"name": "q7", "backend": "oracle", "family": "qwen2.5", "params_b": 7, "release_date": "2024-09-19"},
    {"name": "q72", "backend": "oracle", "family": "qwen2.5", "params_b": 72},
    {"name": "anon", "backend": "oracle", "params_b": 70},  # no family: in no row
]
# gemma-2: 0.2 + 0.004 per B on average, with noise; qwen2.5: two sizes
SCORES = _scores({"g2": [0.2, 0.24], "g9": [0.26, 0.24], "g27": [0.35, 0.33], "g-new": [1.0, 1.0],
                  "q7": [0.3, 0.3], "q72": [0.5, 0.6], "anon": [0.9, 0.9]})


def _metadata():
    return entry_metadata(repr(ENTRIES), "'this_build'")


def test_the_slope_per_billion_parameters_and_its_interval_per_family():
    size = scores_by_model_size(SCORES, _metadata()).set_index("family")
    assert set(size.index) == {"gemma-2", "qwen2.5"}  # anon has no family
    g = size.loc["gemma-2"]
    x, y = np.array([2.0, 9.0, 27.0]), np.array([0.22, 0.25, 0.34])
    fit = np.polyfit(x, y, 1)
    assert g["slope_per_b"] == pytest.approx(fit[0]) and g["n_models"] == 3 and g["models"] == "g2, g27, g9"
    assert g["slope_ci_low"] < g["slope_per_b"] < g["slope_ci_high"]
    residual = y - np.polyval(fit, x)
    se = np.sqrt((residual ** 2).sum() / 1 / ((x - x.mean()) ** 2).sum())
    assert g["slope_ci_high"] - g["slope_per_b"] == pytest.approx(12.7062 * se, rel=1e-4)  # t(0.975, 1 df)
    assert g["models_without_size"] == "g-new" and (g["min_params_b"], g["max_params_b"]) == (2.0, 27.0)
    q = size.loc["qwen2.5"]
    assert q["slope_per_b"] == pytest.approx((0.55 - 0.3) / 65) and np.isnan(q["slope_ci_low"])
    assert q["note"] == "two models: the slope has no interval" and pd.isna(q["models_without_size"])


def test_one_size_gives_no_slope_and_no_family_gives_nothing():
    entries = [{"name": "a", "backend": "oracle", "family": "f", "params_b": 8},
               {"name": "b", "backend": "oracle", "family": "f", "params_b": 8}]
    size = scores_by_model_size(_scores({"a": [0.1], "b": [0.3]}), entry_metadata(repr(entries), "'this_build'"))
    assert np.isnan(size["slope_per_b"].iloc[0]) and "fewer than two sizes" in size["note"].iloc[0]
    bare = entry_metadata(repr([{"name": "a", "backend": "oracle", "params_b": 8}]), "'this_build'")
    assert scores_by_model_size(_scores({"a": [0.1]}), bare).empty
    assert scores_over_time(_scores({"a": [0.1]}), bare).empty


def test_each_release_against_the_familys_previous_one():
    time = scores_over_time(SCORES, _metadata())
    g = time[time["family"] == "gemma-2"]
    # releases in date order (same date: by name); g-new has no date and is named, not placed
    assert list(g["model_name"]) == ["g27", "g9", "g2"] and (g["models_without_date"] == "g-new").all()
    assert pd.isna(g["previous_model"].iloc[0]) and np.isnan(g["change"].iloc[0])
    assert list(g["previous_model"].iloc[1:]) == ["g27", "g9"]
    assert g["change"].iloc[1] == pytest.approx(0.25 - 0.34) and g["change"].iloc[2] == pytest.approx(0.22 - 0.25)
    q = time[time["family"] == "qwen2.5"]
    assert list(q["model_name"]) == ["q7"] and (q["models_without_date"] == "q72").all()


def test_the_report_shows_both_and_names_the_models_without_metadata(tmp_path):
    from pathlib import Path

    from evaluation_py.analysis.report_build import report_sections

    frames = {"by_model_size": scores_by_model_size(SCORES, _metadata()),
              "over_time": scores_over_time(SCORES, _metadata())}
    sections, _ = report_sections(frames, SCORES, tmp_path)
    by_key = {s.key: s for s in sections}
    assert "No `params_b` given for: g-new" in by_key["model_size"].intro
    assert "No `release_date` given for: g-new, q72" in by_key["over_time"].intro
    for key in ("model_size", "over_time"):
        assert Path(by_key[key].figures[0][0]).stat().st_size > 0
    _, unanswered = report_sections({}, SCORES, tmp_path)
    assert {"How do size and score go together?", "Do newer releases do better?"} <= {u.title for u in unanswered}


def test_only_the_named_models_scores_are_read():
    import duckdb

    from evaluation_py.dbt_glue.evaluation_inputs import scores_of_models

    con = duckdb.connect()
    con.register("scores_frame", SCORES)
    relation = con.table("scores_frame")
    assert set(scores_of_models(relation, ["g2", "o'brien"])["model_name"]) == {"g2"}
    empty = scores_of_models(relation, [], "model_name, value")
    assert empty.empty and list(empty.columns) == ["model_name", "value"]
