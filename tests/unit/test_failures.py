"""Requests without an answer: the errors table of a build and the warning that counts them."""
from __future__ import annotations

import pandas as pd

from evaluation_py.backends.base import Prediction
from evaluation_py.running.predictions import errors_table, failure_summary
from evaluation_py.running.store import PredictionStore


def test_errors_table_and_summary_count_per_model_and_kind(tmp_path):
    path = tmp_path / "p.sqlite"
    with PredictionStore(path) as st:
        st.put_many([Prediction("a1", "q1", "a", "ok"), Prediction("a2", "q2", "a", None, "timeout", 3),
                     Prediction("a3", "q3", "a", None, "timeout", 3), Prediction("b1", "q1", "b", None, "connection", 6),
                     Prediction("old", "q9", "a", None, "http_500")])  # an error of a request not in this build
    requests = pd.DataFrame({"cache_key": ["a1", "a2", "a3", "a4", "b1", "b2"],
                             "question_id": ["q1", "q2", "q3", "q4", "q1", "q2"],
                             "model_name": ["a", "a", "a", "a", "b", "b"]})
    errors = errors_table(requests, ["a1", "b2"], path)
    assert errors[["cache_key", "error_kind"]].values.tolist() == [
        ["a2", "timeout"], ["a3", "timeout"], ["a4", "unanswered"], ["b1", "connection"]]
    assert errors["attempts"].tolist()[:2] == [3, 3]
    assert failure_summary(requests, errors) == (
        "4 of 6 requests of this build have no answer (they are sent again next build): "
        "model 'a' 3 of 4 (timeout 2, unanswered 1); model 'b' 1 of 2 (connection 1)")
    assert failure_summary(requests, errors.iloc[:0]) == ""
