"""Consistency across perturbed views (evaluation_py.analysis.robustness): answers compared as strict mode reads
them, per view and over all views, beside exact match on the originals and the views; only the questions of
families declaring perturbed views form groups."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from evaluation_py.analysis.robustness import COLUMNS, normalised_answer, robustness_consistency
from evaluation_py.scoring.scores import score_lists


def _spec(view):
    return json.dumps({"computation": "lookup", "filters": [],
                       "perturbation": None if view == "original" else {"name": view, "kind": view, "seed": 1}})


def _frames(answers: dict, gt="12.5"):
    """answers: (table, view) -> response of model m; one robustness group per table, plus a q01 question."""
    questions, requests, predictions, scores = [], [], [], []
    for (table, view), response in answers.items():
        qid = f"{table}--robustness-{view}"
        questions.append((qid, table, "robustness", _spec(view), "original"))
        key = f"k-{qid}"
        requests.append((key, qid, table, "m", "html", "direct", 0))
        predictions.append((key, response))
        exact = score_lists([response], ["{%s}" % gt], "strict", metric_names=["exact_match"])["exact_match"][0]
        scores.append((key, "strict", "exact_match", exact))
    questions.append(("t1--q01", "t1", "q01", json.dumps({"filters": []}), "original"))
    requests.append(("k-q01", "t1--q01", "t1", "m", "html", "direct", 0))
    predictions.append(("k-q01", "7"))
    return (pd.DataFrame(requests, columns=["cache_key", "question_id", "table_id", "model_name", "table_format",
                                            "inference_mode", "turn"]),
            pd.DataFrame(predictions, columns=["cache_key", "response"]),
            pd.DataFrame(scores, columns=["cache_key", "scoring_mode", "metric", "value"]),
            pd.DataFrame(questions, columns=["question_id", "table_id", "family", "spec_json", "variant"]))


def test_normalised_answers_compare_values_not_spelling():
    assert normalised_answer("12.50") == normalised_answer("The value is 12.5.") == normalised_answer("12.5")
    assert normalised_answer("Oslo || 3") == normalised_answer("3\n- oslo")
    assert normalised_answer("no answer") != normalised_answer(None) != normalised_answer("12.5")


def test_consistency_per_view_and_over_all_views():
    answers = {("t1", "original"): "12.5", ("t1", "permute_rows"): "12.50", ("t1", "header_noise"): "13",
               ("t2", "original"): "11", ("t2", "permute_rows"): "11", ("t2", "header_noise"): "11",
               ("t3", "permute_rows"): "12.5"}  # t3: the original unanswered, its view alone
    out = robustness_consistency(*_frames(answers), seed=1, n_boot=200)
    assert list(out.columns) == COLUMNS
    row = {v: r for v, r in zip(out["view"], out.itertuples(index=False))}
    assert set(row) == {"permute_rows", "header_noise", "all"}
    assert (row["permute_rows"].consistency, row["permute_rows"].n_groups) == (1.0, 2)
    assert (row["header_noise"].consistency, row["header_noise"].n_groups) == (0.5, 2)
    # all: t1 and t2 (two views or more answered); t1 disagrees once
    assert (row["all"].consistency, row["all"].n_groups, row["all"].n_tables) == (0.5, 2, 2)
    # exact match: the originals 12.5 right, 11 wrong; header noise's views 13 and 11 both wrong
    assert row["header_noise"].accuracy_original == 0.5 and row["header_noise"].accuracy_view == 0.0
    assert row["permute_rows"].ci_low <= 1.0 <= row["permute_rows"].ci_high


def test_no_perturbed_views_no_rows():
    requests, predictions, scores, questions = _frames({})
    out = robustness_consistency(requests, predictions, scores, questions, seed=1)
    assert out.empty and list(out.columns) == COLUMNS


def test_questions_lacking_a_column_are_an_error():
    requests, predictions, scores, questions = _frames({("t1", "original"): "1"})
    with pytest.raises(ValueError, match="lack column.*spec_json"):
        robustness_consistency(requests, predictions, scores, questions.drop(columns="spec_json"), seed=1)
