"""The openai backend over real HTTP (127.0.0.1) against the fake server, with the real openai client."""
from __future__ import annotations

import json
import os

import pytest

from evaluation_py.backends import get_backend
from evaluation_py.backends.openai_backend import parse_retry_after
from evaluation_py.backends.params import group_by_prompt_prefix
from evaluation_py.running.runner import run_predictions
from evaluation_py.running.store import PredictionStore
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer
from evaluation_py.testing.requests import make_requests

pytestmark = pytest.mark.timeout(60)

FAST = {"backoff_base_s": 0.02, "backoff_max_s": 0.1}


def backend(urls, **cfg):
    return get_backend("openai", {"base_url": urls, "model": "fake-model", **FAST, **cfg})


def collect(be, reqs):
    got = []
    be.run(reqs, got.append)
    return got


def test_answers_usage_and_registry():
    reqs = make_requests(20)
    with FakeOpenAIServer() as srv:
        got = collect(backend(srv.base_url, concurrency=4), reqs)
    assert len(got) == 20
    by_key = {p.cache_key: p for p in got}
    for r in reqs:
        p = by_key[r.cache_key]
        assert p.response == f"ECHO: {r.question_id}" and p.error_kind is None and p.attempts == 1
        assert p.prompt_tokens > 0 and p.completion_tokens == 2 and p.latency_s > 0
        assert p.logprobs_json is None


def test_every_prediction_stored_exactly_once_under_faults(tmp_path):
    reqs = make_requests(160, n_tables=8)
    rates = {"429": 0.08, "500": 0.08, "503": 0.05, "slow": 0.04, "drop": 0.08}
    with FakeOpenAIServer(latency_s=0.005, fault_rates=rates, max_faulty_attempts=3, retry_after="0.1",
                          slow_s=0.8) as srv:
        store = PredictionStore(tmp_path / "p.sqlite")
        be = backend(srv.base_url, concurrency=12, timeout_s=0.4, max_retries=5)
        stats = run_predictions(reqs, be, store, chunk_size=16, progress=False)
        attempts = dict(srv.attempts)
        faults = srv.stats()["faults"]
    assert stats["answered"] == 160 and stats["errors"] == 0 and stats["sent"] == 160
    assert set(faults) == set(rates)  # every kind of fault did happen
    df = store.all(include_errors=True)
    assert len(df) == 160 and df.cache_key.is_unique and df.error_kind.isna().all()
    assert store.counts() == {"answered": 160, "errors": 0}
    by_q = df.set_index("question_id")
    for r in reqs:
        row = by_q.loc[r.question_id]
        assert row.response == f"ECHO: {r.question_id}"
        assert row.attempts == attempts[r.question_id]  # the client counted every attempt the server saw
    assert (df.attempts > 1).sum() >= 20
    kinds = be.stats["errors_by_kind"]
    assert {"http_429", "http_500", "http_503", "timeout", "connection"} <= set(kinds)


def test_retry_after_is_honoured_and_4xx_not_retried():
    reqs = make_requests(3)
    script = {"q0": ["429", None], "q1": ["400"], "q2": ["500"] * 10}
    with FakeOpenAIServer(script=script, retry_after="0.4") as srv:
        got = {p.question_id: p for p in collect(backend(srv.base_url, max_retries=2), reqs)}
        t = srv.attempt_times("q0")
    assert got["q0"].response == "ECHO: q0" and got["q0"].attempts == 2
    assert t[1] - t[0] >= 0.4  # backoff alone would be <= 0.02 s
    assert got["q1"].response is None and got["q1"].error_kind == "http_400" and got["q1"].attempts == 1
    assert got["q2"].response is None and got["q2"].error_kind == "http_500" and got["q2"].attempts == 3


def test_timeout_and_dropped_connection_errors_after_retries():
    reqs = make_requests(2)
    script = {"q0": ["slow"] * 3, "q1": ["drop"] * 3}
    with FakeOpenAIServer(script=script, slow_s=0.6) as srv:
        got = {p.question_id: p for p in collect(backend(srv.base_url, max_retries=1, timeout_s=0.2), reqs)}
        assert srv.attempts == {"q0": 2, "q1": 2}
    assert (got["q0"].error_kind, got["q0"].attempts, got["q0"].response) == ("timeout", 2, None)
    assert (got["q1"].error_kind, got["q1"].attempts, got["q1"].response) == ("connection", 2, None)


def test_a_200_with_a_truncated_json_body_is_retried_like_a_dropped_connection():
    reqs = make_requests(3)
    # q0: half a body once, then the answer; q1: half a body on every attempt; q2: a dropped connection once
    script = {"q0": ["truncated"], "q1": ["truncated"] * 3, "q2": ["drop"]}
    with FakeOpenAIServer(script=script) as srv:
        got = {p.question_id: p for p in collect(backend(srv.base_url, max_retries=2), reqs)}
        assert srv.attempts == {"q0": 2, "q1": 3, "q2": 2}
    assert (got["q0"].response, got["q0"].error_kind, got["q0"].attempts) == ("ECHO: q0", None, 2)
    assert (got["q2"].response, got["q2"].error_kind, got["q2"].attempts) == ("ECHO: q2", None, 2)
    assert (got["q1"].response, got["q1"].error_kind, got["q1"].attempts) == (None, "bad_response", 3)


def test_concurrency_bound_never_exceeded():
    reqs = make_requests(120)
    with FakeOpenAIServer(latency_s=0.1) as srv:
        be = backend(srv.base_url, concurrency=7)
        got = collect(be, reqs)
        seen = srv.stats()["max_in_flight"]
    assert len(got) == 120 and all(p.response for p in got)
    assert seen == 7 and be.stats["max_in_flight"] == 7


def test_default_concurrency_is_16():
    reqs = make_requests(64)
    # each answer takes long enough that all 16 are in flight at once, also on a loaded machine
    with FakeOpenAIServer(latency_s=0.3) as srv:
        collect(backend(srv.base_url), reqs)
        assert srv.stats()["max_in_flight"] == 16


def test_multiple_base_urls_share_the_load():
    reqs = make_requests(120)
    with FakeOpenAIServer(latency_s=0.01) as a, FakeOpenAIServer(latency_s=0.01) as b:
        be = backend([a.base_url, b.base_url], concurrency=8)
        got = collect(be, reqs)
        na, nb = a.stats()["requests"], b.stats()["requests"]
        assert a.stats()["max_in_flight"] + b.stats()["max_in_flight"] <= 8 + 8
    assert len(got) == 120 and na + nb == 120
    assert na >= 25 and nb >= 25  # both get a real share (exact split depends on timing)
    # A dead URL among live ones: a retry goes to the other URL, and the dead one is set aside.
    with FakeOpenAIServer() as live:
        dead = FakeOpenAIServer().start()
        dead_url = dead.base_url
        dead.stop()
        be = backend([dead_url, live.base_url], concurrency=4, max_retries=5)
        got = collect(be, make_requests(20, prefix="z"))
        assert live.stats()["requests"] == 20
    assert all(p.response for p in got) and max(p.attempts for p in got) <= 2
    assert be.stats["errors_by_kind"]["connection"] < 20 and be.stats["sent_by_url"][dead_url] < 20


def test_a_url_failing_on_the_way_rests_and_comes_back():
    from evaluation_py.backends.openai_backend import _Balancer

    b = _Balancer(2)
    first = b.acquire()
    b.release(first, failed_on_the_way=True)
    assert [b.acquire() for _ in range(3)] == [1 - first] * 3  # the failed URL rests while the other is up
    for _ in range(3):
        b.release(1 - first)
    b.down_until[first] = 0.0  # its cooldown has passed
    assert b.acquire() == first
    b.release(first)
    assert b.failures[first] == 0  # a success ends the run of failures
    assert b.acquire(avoid=first) == 1 - first


def test_logprobs_captured():
    reqs = make_requests(4, params={"logprobs": True, "top_logprobs": 3})
    with FakeOpenAIServer() as srv:
        got = collect(backend(srv.base_url), reqs)
    for p in got:
        lp = json.loads(p.logprobs_json)
        assert lp["token"] == "ECHO:" and lp["logprob"] == pytest.approx(-0.01)
        assert [t["token"] for t in lp["top_logprobs"]] == ["ECHO:", "ECHO:~1", "ECHO:~2"]
    # Asked for in the backend config instead of the request.
    with FakeOpenAIServer() as srv:
        got = collect(backend(srv.base_url, params={"logprobs": True, "top_logprobs": 2}), make_requests(1))
    assert len(json.loads(got[0].logprobs_json)["top_logprobs"]) == 2


def test_sent_grouped_by_table_in_order():
    reqs = make_requests(12, n_tables=3)  # interleaved t0 t1 t2 t0 ...
    with FakeOpenAIServer() as srv:
        collect(backend(srv.base_url, concurrency=1), reqs)
        order = [k for _, k, _, _ in srv.events]
    assert order == [r.question_id for r in group_by_prompt_prefix(reqs)]
    assert order[:4] == ["q0", "q3", "q6", "q9"]


def test_a_mode_and_format_s_requests_go_together_then_a_table_s():
    from dataclasses import replace

    base = make_requests(6, n_tables=2)  # q0..q5 on t0 t1 t0 t1 ...
    # built as the entries build them: mode by mode, format by format, question by question
    reqs = [replace(r, cache_key=f"{m}-{f}-{r.cache_key}", inference_mode=m, table_format=f)
            for m in ("direct", "pot") for f in ("html", "markdown") for r in base]
    ordered = group_by_prompt_prefix(reqs)
    assert [(r.inference_mode, r.table_format) for r in ordered] == [
        (m, f) for m in ("direct", "pot") for f in ("html", "markdown") for _ in range(6)]
    assert [r.question_id for r in ordered[:6]] == ["q0", "q2", "q4", "q1", "q3", "q5"]
    assert sorted(r.cache_key for r in ordered) == sorted(r.cache_key for r in reqs)


def test_api_key_from_env(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sekret")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIServer() as srv:
        collect(backend(srv.base_url, api_key_env="MY_KEY"), make_requests(1))
        collect(backend(srv.base_url), make_requests(1, prefix="k"))
        assert srv.authorizations == {"Bearer sekret", "Bearer EMPTY"}


def test_config_validation_and_retry_after_parsing():
    with pytest.raises(ValueError, match="model"):
        get_backend("openai", {"base_url": "http://127.0.0.1:1/v1"})
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "150", "retry-after": "9"}) == 0.15
    assert parse_retry_after({"retry-after": "1000"}, cap_s=30) == 30
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({}) is None


def test_empty_request_list_sends_nothing():
    with FakeOpenAIServer() as srv:
        assert collect(backend(srv.base_url), []) == []
        assert srv.stats()["requests"] == 0


def test_cli_server_runs_as_module(tmp_path):
    import subprocess
    import sys

    import openai

    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"what?": "42 || 43"}))
    proc = subprocess.Popen([sys.executable, "-m", "evaluation_py.testing.fake_openai_server", "--port", "0",
                             "--responses", str(answers)], stdout=subprocess.PIPE, text=True,
                            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    try:
        line = proc.stdout.readline().split()
        assert line[0] == "READY"
        client = openai.OpenAI(base_url=line[1], api_key="x", max_retries=0)
        r = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "what?"}])
        assert r.choices[0].message.content == "42 || 43" and r.usage.completion_tokens == 3
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
