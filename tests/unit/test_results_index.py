"""Which models a benchmark holds results for, across builds (evaluation_py.running.results, evaluation_py.dbt_glue.evaluation_inputs)."""
import json

import pandas as pd
import pytest

from evaluation_py.backends.base import Prediction
from evaluation_py.dbt_glue.evaluation_inputs import build_requests_with_results, eval_entries, remove_var, scope_var, store_path
from evaluation_py.running.results import ResultsIndex
from evaluation_py.running.store import PredictionStore

COLUMNS = ["cache_key", "question_id", "table_id", "model_name", "backend", "model", "table_format", "inference_mode",
           "kind", "turn", "parent_key", "prompt_version", "prompt_id", "params_json"]


def _requests(model: str, keys: list[str], fmt: str = "html", version: str = "v1") -> pd.DataFrame:
    rows = [(f"{model}-{k}-{fmt}-{version}", k, "t1", model, "replay", "file", fmt, "direct", "generate", 0, None,
             version, "p", "{}") for k in keys]
    return pd.DataFrame(rows, columns=COLUMNS).astype({"turn": "int64"})


def _answer(store_file, frame: pd.DataFrame) -> None:
    with PredictionStore(store_file, run_id="r") as store:
        store.put_many(Prediction(cache_key=k, question_id=q, model_name=m, response="x", attempts=1)
                       for k, q, m in frame[["cache_key", "question_id", "model_name"]].itertuples(index=False))


def _entry(name: str, file: str = "a.jsonl") -> dict:
    return {"name": name, "backend": "replay", "path": str(_ENTRY_DIR[0] / file)}


def _build(store_file, entries, frame, fingerprint="fp1", scope=None, remove=None) -> pd.DataFrame:
    out = build_requests_with_results(frame, entries, scope, remove, fingerprint, store_file)
    _answer(store_file, frame)  # the build answers its requests
    return out


@pytest.fixture(autouse=True)
def replay_files(tmp_path):
    """Two responses files of different content: an entry's identity is its file's hash."""
    for name, answer in (("a.jsonl", "1"), ("other.jsonl", "2")):
        (tmp_path / name).write_text(json.dumps({"id": "q1", "response": answer}) + "\n")
    _ENTRY_DIR[0] = tmp_path


_ENTRY_DIR = [None]


def test_models_accumulate_per_fingerprint_and_changed_entries_replace_their_rows(tmp_path):
    store_file = tmp_path / "cache" / "predictions.sqlite"
    a = _requests("a", ["q1", "q2"])
    _build(store_file, [_entry("a")], a)
    b = _requests("b", ["q1"])
    out = _build(store_file, [_entry("b")], b)
    assert sorted(out["model_name"].unique()) == ["a", "b"]
    assert dict(zip(out["cache_key"], out["this_build"])) == {**{k: False for k in a["cache_key"]}, b["cache_key"][0]: True}
    # more formats for the same entry add rows
    out = _build(store_file, [_entry("a")], _requests("a", ["q1"], fmt="csv"))
    assert len(out[out["model_name"] == "a"]) == 3
    # a changed entry (another file): only its own model's rows are replaced
    out = _build(store_file, [_entry("a", file="other.jsonl")], _requests("a", ["q2"], version="v2"))
    assert sorted(out.loc[out["model_name"] == "a", "cache_key"]) == ["a-q2-html-v2"]
    assert list(out.loc[out["model_name"] == "b", "cache_key"]) == list(b["cache_key"])
    # another benchmark holds none of these
    c = _requests("c", ["q9"])
    other = _build(store_file, [_entry("c")], c, fingerprint="fp2")
    assert list(other["model_name"].unique()) == ["c"]
    with ResultsIndex(store_file) as index:
        held = index.fingerprints()
    assert set(zip(held["fingerprint"], held["model_name"])) == {("fp1", "a"), ("fp1", "b"), ("fp2", "c")}


def test_unanswered_requests_of_earlier_builds_stay_out_and_remove_takes_a_model_out(tmp_path):
    store_file = tmp_path / "predictions.sqlite"
    a = _requests("a", ["q1", "q2"])
    build_requests_with_results(a, [_entry("a")], None, None, "fp1", store_file)
    _answer(store_file, a.iloc[:1])  # the build was stopped after one answer
    out = _build(store_file, [_entry("b")], _requests("b", ["q1"]))
    assert sorted(out["cache_key"]) == ["a-q1-html-v1", "b-q1-html-v1"]
    out = _build(store_file, [_entry("b")], _requests("b", ["q1"]), remove=["a"])
    assert list(out["model_name"].unique()) == ["b"]
    with PredictionStore(store_file) as store:  # the answers stay cached
        assert "a-q1-html-v1" in store.answered_keys()


def test_this_build_scope_shows_only_this_build(tmp_path):
    store_file = tmp_path / "predictions.sqlite"
    _build(store_file, [_entry("a")], _requests("a", ["q1"]))
    out = _build(store_file, [_entry("b")], _requests("b", ["q1"]), scope="this_build")
    assert list(out["model_name"].unique()) == ["b"]


def test_baselines_join_listed_entries_in_the_accumulate_scope_only():
    names = [e["name"] for e in eval_entries(repr([_entry("a")]), None)]
    assert names == ["a", "oracle", "header_match"]
    assert [e["name"] for e in eval_entries(repr([_entry("a")]), "this_build")] == ["a"]
    assert eval_entries(None, None) is None  # the default entries are the baselines already
    listed = eval_entries(repr([{"name": "oracle", "backend": "oracle", "sample": 5}]), None)
    assert [e["name"] for e in listed] == ["oracle", "header_match"] and listed[0]["sample"] == 5


def test_vars_are_checked_with_their_names():
    with pytest.raises(ValueError, match="var eval_scope"):
        scope_var("everything")
    with pytest.raises(ValueError, match="var eval_remove_models"):
        remove_var("[1, 2]")
    assert remove_var("a") == ["a"] and scope_var(None) == "accumulate"


def test_store_follows_the_database(tmp_path, monkeypatch):
    monkeypatch.delenv("HCTQA_CACHE_DIR", raising=False)
    assert store_path(None, tmp_path / "hctqa.duckdb") == tmp_path / "cache" / "predictions.sqlite"
    assert store_path(None, tmp_path / "lab.duckdb") == tmp_path / "lab_cache" / "predictions.sqlite"
    assert str(store_path("elsewhere", tmp_path / "lab.duckdb")) == "elsewhere/predictions.sqlite"


def test_answers_carry_their_run(tmp_path):
    with PredictionStore(tmp_path / "p.sqlite", run_id="run-1") as store:
        store.put_many([Prediction(cache_key="k", question_id="q", model_name="m", response="x", attempts=1)])
        assert store.run_ids(["k"]) == {"k": "run-1"}
    with PredictionStore(tmp_path / "p.sqlite", run_id="run-2") as store:
        store.put_many([Prediction(cache_key="k2", question_id="q", model_name="m", response=None,
                                   error_kind="timeout", attempts=1)])
    with ResultsIndex(tmp_path / "p.sqlite") as index:
        index.start_run("run-1", "fp", json.dumps([]), {}, None)
        index.start_run("run-2", "fp", json.dumps([]), {}, None)
        runs = index.runs()  # neither run was closed: counted from the rows they wrote
    assert list(zip(runs["run_id"], runs["requests_sent"], runs["requests_failed"])) == [("run-1", 1, 0),
                                                                                        ("run-2", 1, 1)]


def test_a_run_records_the_git_commit_of_a_checkout_and_none_elsewhere(tmp_path):
    import subprocess

    from evaluation_py.running.runs import git_commit

    assert git_commit(tmp_path) is None
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, env=env)
    (tmp_path / "f").write_text("x")
    subprocess.run(["git", "-C", str(tmp_path), "add", "f"], check=True, env=env)
    subprocess.run(["git", "-C", str(tmp_path), "commit", "-qm", "x"], check=True, env=env)
    head = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert len(head) == 40 and git_commit(tmp_path) == head
