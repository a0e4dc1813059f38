"""Answer verbosity counts the values given and the values expected alike: the oracle's ratio is exactly 1."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from evaluation_py.analysis.breakdowns import answer_verbosity
from evaluation_py.backends import BenchmarkLookup, get_backend
from evaluation_py.scoring.scores import n_values_expected, n_values_given, scores_table
from evaluation_py.testing.requests import make_requests

# Repeated values within and across rows, thousands separators, trailing zeros, case, a bare value,
# an empty group and a malformed gt: each counted once per distinct value, on both sides.
GTS = [
    "{Female | 40 | 40} || {Male | 86 | 86}",
    "{a | 1} || {b | 1}",
    "{1,250} || {1250}",
    "{2.50} || {2.5} || {3}",
    "{Doha} || {doha}",
    "12.5",
    "{x | } || {y}",
    "{-14597)",
    "{Yes}",
]


def test_counts_are_distinct_normalised_values_on_both_sides():
    assert [n_values_expected(g) for g in GTS] == [4, 3, 1, 2, 1, 1, 2, 1, 1]
    assert n_values_given("female || 40 || 40 || Male") == n_values_expected("{Female | 40 | 40} || {Male}") == 3
    assert n_values_given("950 ||") == 1  # an empty value is no value given
    assert n_values_given(None) == 0 and n_values_expected(None) == 0


def _oracle_scores() -> pd.DataFrame:
    reqs = [replace(r, question_id=f"q{i}") for i, r in
            enumerate(make_requests(len(GTS), backend="oracle", model_name="oracle"))]
    gts = pd.DataFrame({"question_id": [r.question_id for r in reqs], "answer_gt": GTS})
    answered = []
    get_backend("oracle", {}, BenchmarkLookup(gts)).run(reqs, answered.append)
    keys = ("cache_key", "question_id", "table_id", "model_name", "backend", "model", "table_format")
    requests = pd.DataFrame([{k: getattr(r, k) for k in keys} for r in reqs])
    predictions = pd.DataFrame([{"cache_key": p.cache_key, "response": p.response} for p in answered])
    questions = pd.DataFrame({"question_id": [r.question_id for r in reqs], "source": "synthetic",
                              "dataset": "accidents", "template_id": 1, "answer_gt": GTS})
    return scores_table(requests, predictions, questions)


def test_oracle_verbosity_ratio_is_exactly_one():
    scores = _oracle_scores()
    assert (scores.n_values_given == scores.n_values_expected).all()
    v = answer_verbosity(scores)
    assert set(v["scoring_mode"]) == {"strict", "paper"}
    assert (v.verbosity_ratio == 1.0).all(), v[["scoring_mode", "mean_values_given", "mean_values_expected"]]
    from evaluation_py.scoring import metrics

    best = v.metric.map(lambda m: metrics.get(m).best)
    assert (v.value == best).all() and (v.backend == "oracle").all()  # every metric at its best, recall among them
    assert v.mean_values_expected.iloc[0] == pytest.approx(sum([4, 3, 1, 2, 1, 1, 2, 1, 1]) / len(GTS))
