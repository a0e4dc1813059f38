"""Inference modes, backend capabilities and multi-turn episodes, with a toy backend and a toy mode
registered from here (no library edits): the registries are the only way in."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from evaluation_py.backends import Backend, BenchmarkLookup, Prediction, register
from evaluation_py.modes.inference_mode import InferenceMode, get_mode, register_mode
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.running.predictions import predict, turns_table
from evaluation_py.running.requests import build_requests
from evaluation_py.running.store import PredictionStore
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(60)

QUESTIONS = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "table_id": ["t1", "t1", "t2"],
                          "source": ["synthetic"] * 3, "question": ["How many?", "Which?", "Who?"],
                          "answer_gt": ["{3}", "{a}", "{b}"]})
TABLES = pd.DataFrame({"table_id": ["t1", "t2"], "html": ["<table>1</table>", "<table>2</table>"],
                       "csv": ["1", "2"], "markdown": ["| 1 |", "| 2 |"]})
BENCHMARK = BenchmarkLookup(QUESTIONS, TABLES)
MARKER = "FINAL"


# ------------------------------------------------------------------ the toy mode: asks twice, ends at a marker
def ask(table_text: str, table_format: str, question: str, system_role: bool = True) -> tuple[dict, ...]:
    return ({"role": "user", "content": f"{table_text}\n{question}"},)


def follow_up(transcript: tuple[dict, ...]):
    """A follow-up after each reply until one holds the marker (the mode's max_turns bounds it too)."""
    if MARKER in transcript[-1]["content"]:
        return None
    asked = sum(m["role"] == "assistant" for m in transcript)
    return f"Are you sure? (follow-up {asked})"


TOY_MODE = register_mode(InferenceMode(name="toy_followup", prompt_version="toy-v1", build_messages=ask,
                                       extraction="toy", max_turns=5, next_message=follow_up))


# ------------------------------------------------------------------ the toy backend
@register("toy_echo")
class ToyEcho(Backend):
    """Echoes the last user message; the second follow-up gets the marker. Counts its calls."""

    capabilities = frozenset({"multi_turn"})
    default_model = "echo"
    calls: list[list[str]] = []

    def run(self, requests, on_result):
        ToyEcho.calls.append([r.cache_key for r in requests])
        for r in requests:
            last = r.messages[-1]["content"]
            reply = f"{MARKER} {r.question_id}" if last.endswith("(follow-up 2)") else f"echo {last}"
            on_result(Prediction(cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                                 response=reply))


@register("toy_single")
class ToySingle(Backend):
    """A backend without multi_turn: it must never be constructed for a multi-turn mode."""

    default_model = "none"
    constructed = 0

    def __init__(self, config):
        super().__init__(config)
        ToySingle.constructed += 1

    def run(self, requests, on_result):
        raise AssertionError("a request it cannot serve reached it")


def specs_and_requests(entry: dict):
    specs = parse_eval_models([entry])
    requests = [r for s in specs for r in build_requests(s, QUESTIONS, TABLES, 42, BENCHMARK)]
    return specs, requests


# ------------------------------------------------------------------ registry and entry checks
def test_direct_mode_keeps_the_zero_shot_prompt():
    from evaluation_py.prompting.prompts import PROMPT_VERSION, build_messages

    direct = get_mode("direct")
    assert (direct.prompt_version, direct.kind, direct.max_turns, direct.extraction) == (PROMPT_VERSION, "generate", 1,
                                                                                       "direct")
    assert direct.build_messages is build_messages and direct.required_capabilities() == frozenset()
    assert TOY_MODE.required_capabilities() == {"multi_turn"}


def test_incomplete_modes_are_refused():
    with pytest.raises(ValueError, match="max_turns 3 needs next_message"):
        register_mode(InferenceMode(name="bad", prompt_version="v", build_messages=ask, extraction="x", max_turns=3))
    with pytest.raises(ValueError, match="kind 'rank' must be one of generate, choose"):
        register_mode(InferenceMode(name="bad", prompt_version="v", build_messages=ask, extraction="x", kind="rank"))
    with pytest.raises(ValueError, match="unknown capabilities"):
        register_mode(InferenceMode(name="bad", prompt_version="v", build_messages=ask, extraction="x",
                                    needs=frozenset({"telepathy"})))
    with pytest.raises(ValueError, match="unknown inference mode 'bad'"):
        get_mode("bad")


def test_entry_modes_default_unknown_and_capability_errors_name_entry_and_key():
    (spec,) = parse_eval_models([{"name": "o", "backend": "oracle"}])
    assert spec.modes == ("direct",)
    with pytest.raises(ValueError, match=r"entry 1 .*key `modes`: unknown inference mode 'zcot'; known modes: .*direct"):
        parse_eval_models([{"name": "o", "backend": "oracle", "modes": ["direct", "zcot"]}])
    with pytest.raises(ValueError, match=r"entry 1 .*key `modes`: inference mode 'toy_followup' needs capability "
                                         r"'multi_turn', which backend 'oracle' lacks"):
        parse_eval_models([{"name": "o", "backend": "oracle", "modes": ["toy_followup"]}])
    with pytest.raises(ValueError, match="key `modes`"):
        parse_eval_models([{"name": "o", "backend": "oracle", "modes": []}])


def test_a_request_its_backend_cannot_serve_fails_before_any_backend_starts(tmp_path):
    from dataclasses import replace

    specs, requests = specs_and_requests({"name": "s", "backend": "toy_single"})
    smuggled = [replace(r, inference_mode="toy_followup") for r in requests]  # past the entry check
    with pytest.raises(ValueError, match="entry 's': inference mode 'toy_followup' needs capability 'multi_turn', "
                                         "which backend 'toy_single' lacks; nothing was sent"):
        predict(specs, smuggled, set(), tmp_path / "p.sqlite", progress=False)
    assert ToySingle.constructed == 0


def test_requests_carry_mode_kind_turn_and_version_and_modes_get_their_own_keys():
    _, requests = specs_and_requests({"name": "e", "backend": "toy_echo", "modes": ["direct", "toy_followup"]})
    assert len(requests) == 6 and len({r.cache_key for r in requests}) == 6
    toy = [r for r in requests if r.inference_mode == "toy_followup"]
    assert {(r.kind, r.turn, r.parent_key, r.prompt_version) for r in toy} == {("generate", 0, None, "toy-v1")}
    assert toy[0].messages == ({"role": "user", "content": "<table>1</table>\nHow many?"},)


# ------------------------------------------------------------------ through predict, toy backend and toy mode
def test_toy_backend_and_mode_run_through_predict_into_episodes(tmp_path):
    ToyEcho.calls.clear()
    store_path = tmp_path / "p.sqlite"
    specs, requests = specs_and_requests({"name": "e", "backend": "toy_echo", "modes": ["direct", "toy_followup"]})
    out = predict(specs, requests, set(), store_path, progress=False)
    assert len(out) == 6 and set(out["cache_key"]) == {r.cache_key for r in requests}  # one row per episode
    # one call per turn: the first turns of both modes, then follow-up 1 and 2 of the three toy episodes
    assert [len(c) for c in ToyEcho.calls] == [6, 3, 3]
    toy = out[out["inference_mode"] == "toy_followup"].set_index("question_id")
    direct = out[out["inference_mode"] == "direct"].set_index("question_id")
    assert toy.loc["q1", "response"] == "FINAL q1" and list(toy["turn"]) == [2, 2, 2]
    assert toy["parent_key"].notna().all() and direct["parent_key"].isna().all() and list(direct["turn"]) == [0] * 3
    assert set(toy["prompt_version"]) == {"toy-v1"} and set(out["kind"]) == {"generate"}
    assert toy["attempts"].tolist() == [3, 3, 3]  # summed over the three turns

    with PredictionStore(store_path) as store:
        episodes = store.episodes([r.cache_key for r in requests])
    assert len(episodes) == 3  # direct requests have no episode record: their answer is the episode
    first = next(r for r in requests if r.inference_mode == "toy_followup" and r.question_id == "q1")
    e = episodes[first.cache_key]
    assert [m["role"] for m in e["transcript"]] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert e["transcript"][2]["content"] == "Are you sure? (follow-up 1)" and e["turn_keys"][0] == first.cache_key
    assert toy.loc["q1", "parent_key"] == e["turn_keys"][1]

    turns = turns_table(pd.DataFrame({"cache_key": [r.cache_key for r in requests],
                                      "inference_mode": [r.inference_mode for r in requests]}), store_path)
    q1 = turns[turns["episode_key"] == first.cache_key]
    assert q1["turn"].tolist() == [0, 1, 2] and q1["cache_key"].tolist() == e["turn_keys"]
    assert q1["user_message"].tolist() == [None, "Are you sure? (follow-up 1)", "Are you sure? (follow-up 2)"]
    assert q1["response"].tolist() == ["echo <table>1</table>\nHow many?", "echo Are you sure? (follow-up 1)",
                                       "FINAL q1"]
    assert q1["parent_key"].tolist() == [None, *e["turn_keys"][:2]]

    ToyEcho.calls.clear()
    again = predict(specs, requests, set(), store_path, progress=False)
    assert ToyEcho.calls == []  # a rerun replays every episode from the store
    pd.testing.assert_frame_equal(again, out)


def test_max_turns_ends_an_episode_without_its_marker(tmp_path):
    short = register_mode(InferenceMode(name="toy_two_turns", prompt_version="toy-v1", build_messages=ask,
                                        extraction="toy", max_turns=2, next_message=follow_up))
    specs, requests = specs_and_requests({"name": "e", "backend": "toy_echo", "modes": [short.name]})
    out = predict(specs, requests, set(), tmp_path / "p.sqlite", progress=False)
    assert out["turn"].tolist() == [1, 1, 1]
    assert out.set_index("question_id").loc["q2", "response"] == "echo Are you sure? (follow-up 1)"


# ------------------------------------------------------------------ over HTTP: the openai backend, the loopback server
def http_entry(base_url: str) -> dict:
    return {"name": "m", "backend": "openai", "model": "fake-model", "base_url": base_url,
            "modes": ["toy_followup"], "max_retries": 0, "concurrency": 2}


FOLLOW_UP_2 = "Are you sure? (follow-up 2)"


def test_http_rerun_replays_episodes_with_zero_requests(tmp_path):
    store_path = tmp_path / "p.sqlite"
    with FakeOpenAIServer(responses={FOLLOW_UP_2: "FINAL 3"}) as srv:
        specs, requests = specs_and_requests(http_entry(srv.base_url))
        out = predict(specs, requests, set(), store_path, progress=False)
        assert srv.stats()["requests"] == 9  # three episodes of three turns
        assert out["response"].tolist() == ["FINAL 3"] * 3 and out["turn"].tolist() == [2, 2, 2]
        srv.reset_counters()
        again = predict(specs, requests, set(), store_path, progress=False)
        assert srv.stats()["requests"] == 0
    pd.testing.assert_frame_equal(again, out)


def test_http_run_stopped_mid_episode_resumes_at_its_turn(tmp_path):
    store_path = tmp_path / "p.sqlite"
    # First run: every second follow-up fails (no retries), so each episode stops after its turn 1.
    with FakeOpenAIServer(responses={FOLLOW_UP_2: "FINAL 3"}, script={FOLLOW_UP_2: ["500"] * 10}) as srv:
        specs, requests = specs_and_requests(http_entry(srv.base_url))
        out = predict(specs, requests, set(), store_path, progress=False)
        assert len(out) == 0 and srv.stats()["requests"] == 9
    with PredictionStore(store_path) as store:
        assert store.episodes([r.cache_key for r in requests]) == {}
        assert store.counts() == {"answered": 6, "errors": 3}  # turns 0 and 1 kept; turn 2 failed
    # Second run: only the turn each episode stopped at is sent.
    with FakeOpenAIServer(responses={FOLLOW_UP_2: "FINAL 3"}) as srv:
        specs, requests = specs_and_requests(http_entry(srv.base_url))
        out = predict(specs, requests, set(), store_path, progress=False)
        assert srv.stats()["requests"] == 3 and set(srv.attempts) == {FOLLOW_UP_2}
    assert out["response"].tolist() == ["FINAL 3"] * 3 and out["turn"].tolist() == [2, 2, 2]
    with PredictionStore(store_path) as store:
        assert store.counts() == {"answered": 9, "errors": 0}
        assert len(store.episodes([r.cache_key for r in requests])) == 3
        transcript = next(iter(store.episodes([requests[0].cache_key]).values()))["transcript"]
    assert json.dumps(transcript).count("ECHO: Are you sure? (follow-up 1)") == 1


CHILD = textwrap.dedent("""
    import os, sys
    # the test module's folder (tests/unit) and tests/, where the helpers in tests/support/ are imported from
    sys.path[:0] = [sys.argv[3], os.path.dirname(sys.argv[3])]
    import test_inference_modes as t  # registers the toy mode, as this test module does
    from evaluation_py.running.predictions import predict
    specs, requests = t.specs_and_requests(t.http_entry(sys.argv[1]))
    predict(specs, requests, set(), sys.argv[2], progress=False)
    print("FINISHED")
""")


def _stored(db: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM predictions").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0  # not created yet


def test_http_run_killed_mid_episode_resumes_at_its_turn(tmp_path):
    db = tmp_path / "p.sqlite"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # The second follow-up hangs, so the child is killed with turns 0 and 1 of every episode stored.
    with FakeOpenAIServer(script={FOLLOW_UP_2: ["slow"] * 10}, slow_s=30) as srv:
        child = subprocess.Popen([sys.executable, str(script), srv.base_url, str(db), str(Path(__file__).parent)],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while (_stored(db) < 6 or srv.stats()["in_flight"] < 2) and time.monotonic() < deadline \
                and child.poll() is None:
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        out, err = child.communicate(timeout=10)
        assert "FINISHED" not in out, err
        assert _stored(db) == 6
    with FakeOpenAIServer(responses={FOLLOW_UP_2: "FINAL 3"}) as srv:
        specs, requests = specs_and_requests(http_entry(srv.base_url))
        out = predict(specs, requests, set(), db, progress=False)
        assert srv.stats()["requests"] == 3 and set(srv.attempts) == {FOLLOW_UP_2}  # only the killed turn
    assert out["response"].tolist() == ["FINAL 3"] * 3 and out["turn"].tolist() == [2, 2, 2]
