"""PredictionStore: answers and errors kept apart, durable, reopenable."""
from __future__ import annotations

import sqlite3

import pytest

from evaluation_py.backends.base import Prediction
from evaluation_py.running.store import PREDICTION_COLUMNS, PredictionStore


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


# ------------------------------------------------------------------ damaged or edited files
def _filled(path, n=300):
    with PredictionStore(path) as st:
        st.put_many([P(f"k{i:04d}", "x" * 400) for i in range(n)])


@pytest.mark.parametrize("damage", ["truncated", "overwritten"])
def test_unreadable_file_names_itself_and_the_way_out(tmp_path, damage):
    from evaluation_py.running.store import StoreUnreadable

    path = tmp_path / "cache" / "predictions.sqlite"
    _filled(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"not sqlite at all " * 200)
    with pytest.raises(StoreUnreadable) as info:
        with PredictionStore(path) as st:
            st.answered_keys(["k0001"])
            st.get(["k0001"])
    msg = str(info.value)
    assert str(path) in msg and "delete it" in msg and "eval_cache_dir" in msg


def test_answer_edited_in_the_file_is_dropped_with_a_warning_and_asked_again(tmp_path, caplog):
    path = tmp_path / "s.sqlite"
    with PredictionStore(path) as st:
        st.put_many([P("a", "Doha"), P("b", "12")])
    con = sqlite3.connect(path)
    con.execute("UPDATE predictions SET response = 'Paris' WHERE cache_key = 'a'")
    con.commit()
    con.close()
    with caplog.at_level("WARNING", logger="evaluation_py.running.store"), PredictionStore(path) as st:
        assert st.answered_keys(["a", "b"]) == {"b"}
        assert list(st.get(["a", "b"]).response) == ["12"]
        # Missing now: a failed re-ask is recorded as an error, an answer is stored again.
        st.put_many([P("a", None, "timeout")])
        assert list(st.errors().cache_key) == ["a"]
        st.put_many([P("a", "Doha")])
        assert st.answered_keys(["a"]) == {"a"}
    assert "1 stored answer(s) fail their checksum" in caplog.text and str(path) in caplog.text


def test_store_without_checksums_is_upgraded_and_its_answers_asked_again(tmp_path):
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE predictions (cache_key TEXT PRIMARY KEY, question_id TEXT NOT NULL, model_name TEXT"
                " NOT NULL, response TEXT NOT NULL, error_kind TEXT, attempts INTEGER NOT NULL, latency_s REAL,"
                " prompt_tokens INTEGER, completion_tokens INTEGER, logprobs_json TEXT, created_at REAL NOT NULL)")
    con.execute("INSERT INTO predictions VALUES ('a', 'qa', 'm', 'r', NULL, 1, 0, NULL, NULL, NULL, 0)")
    con.commit()
    con.close()
    with PredictionStore(path) as st:
        assert st.answered_keys() == set()
        st.put_many([P("a")])
        assert st.answered_keys() == {"a"}


def test_episode_is_finished_only_while_every_turn_keeps_its_answer(tmp_path):
    path = tmp_path / "s.sqlite"
    transcript = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a0"},
                  {"role": "user", "content": "sure?"}, {"role": "assistant", "content": "a1"}]
    with PredictionStore(path) as st:
        st.put_many([P("t0", "a0"), P("t1", "a1")])
        st.put_episode("t0", "qt0", "m", "toy", ["t0", "t1"], transcript)
        assert st.episodes(["t0", "zzz"]) == {"t0": {"question_id": "qt0", "model_name": "m", "inference_mode": "toy",
                                                     "turn_keys": ["t0", "t1"], "transcript": transcript}}
    con = sqlite3.connect(path)
    con.execute("UPDATE predictions SET response = 'edited' WHERE cache_key = 't1'")
    con.commit()
    con.close()
    with PredictionStore(path) as st:
        assert st.episodes(["t0"]) == {}  # its last turn's answer fails its checksum: asked again
        assert st.answered_keys() == {"t0"}
