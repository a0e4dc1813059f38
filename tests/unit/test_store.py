"""PredictionStore: answers and errors kept apart, durable, reopenable."""
from __future__ import annotations

import sqlite3

import pytest

from evaluation_py.backends.base import Prediction
from evaluation_py.store import PREDICTION_COLUMNS, PredictionStore


def P(key, resp="r", kind=None, attempts=1, **kw):
    return Prediction(key, "q" + key, "m", resp, kind, attempts, **kw)


def test_put_get_all_and_columns(tmp_path):
    with PredictionStore(tmp_path / "s.sqlite") as st:
        assert st.put_many([P("a", prompt_tokens=5, completion_tokens=2, latency_s=0.5, logprobs_json="{}"),
                            P("b", "x || y")]) == (2, 0)
        df = st.all()
        assert list(df.columns) == PREDICTION_COLUMNS
        assert list(df.cache_key) == ["a", "b"]
        assert df.prompt_tokens.tolist()[0] == 5 and df.logprobs_json.tolist() == ["{}", None]
        assert df.error_kind.isna().all()
        assert list(st.get(["b", "zzz"]).response) == ["x || y"]
        assert len(st.get([])) == 0
        assert st.answered_keys() == {"a", "b"} and st.answered_keys(["b", "c"]) == {"b"}
        assert st.put_many([]) == (0, 0)


def test_errors_not_answers_then_cleared(tmp_path):
    path = tmp_path / "s.sqlite"
    with PredictionStore(path) as st:
        st.put_many([P("a", None, "http_429", 6), P("b")])
        st.put_many([P("a", None, "timeout", 6)])
        assert st.answered_keys() == {"b"}
        e = st.errors()
        assert e.loc[0, ["error_kind", "attempts", "failures", "total_attempts"]].tolist() == ["timeout", 6, 2, 12]
        both = st.all(include_errors=True)
        assert len(both) == 2 and both.set_index("cache_key").loc["a", "response"] is None
        assert len(st.get(["a"])) == 0 and len(st.get(["a"], include_errors=True)) == 1
        # An error never overwrites an answer; an answer clears the error.
        st.put_many([P("b", None, "http_500")])
        assert st.counts() == {"answered": 1, "errors": 1}
        st.put_many([P("a", "late", attempts=2)])
        assert st.counts() == {"answered": 2, "errors": 0}
    with PredictionStore(path) as st:  # reopened: everything is still there
        assert st.all().set_index("cache_key").response.to_dict() == {"a": "late", "b": "r"}


def test_one_row_per_key_and_wal(tmp_path):
    path = tmp_path / "s.sqlite"
    with PredictionStore(path) as st:
        st.put_many([P("a", "1"), P("a", "2")])
        st.put_many([P("a", "3")])
        assert st.all().response.tolist() == ["3"]
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()


def test_many_keys(tmp_path):
    with PredictionStore(tmp_path / "s.sqlite") as st:
        st.put_many([P(f"k{i:05d}") for i in range(2500)])
        keys = [f"k{i:05d}" for i in range(0, 3000, 2)]
        assert len(st.answered_keys(keys)) == 1250 and len(st.get(keys)) == 1250


def test_failed_write_rolls_back(tmp_path):
    with PredictionStore(tmp_path / "s.sqlite") as st:
        with pytest.raises(sqlite3.Error):
            st.put_many([P("a"), Prediction("b", None, "m", "r")])  # question_id NULL violates NOT NULL
        assert st.counts() == {"answered": 0, "errors": 0}
