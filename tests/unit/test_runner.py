"""run_predictions: resumable, chunked, deduplicating; and the progress bar."""
from __future__ import annotations

import io
import os
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaluation_py.backends import Backend, Prediction, get_backend
from evaluation_py.running.progress import Progress
from evaluation_py.running.runner import run_predictions
from evaluation_py.running.store import PredictionStore
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer
from evaluation_py.testing.requests import make_requests

pytestmark = pytest.mark.timeout(60)
ROOT = Path(__file__).resolve().parents[2]


class Scripted(Backend):
    """Answers from a function of the request; records what it was asked."""

    name = "scripted"

    def __init__(self, answer=lambda r: "ok", fail_after=None):
        super().__init__({})
        self.answer = answer
        self.fail_after = fail_after
        self.calls: list[list[str]] = []

    def run(self, requests, on_result):
        self.calls.append([r.cache_key for r in requests])
        for i, r in enumerate(requests):
            if self.fail_after is not None and i == self.fail_after:
                raise RuntimeError("backend broke")
            text = self.answer(r)
            if text is Ellipsis:
                continue  # never answered
            on_result(Prediction(r.cache_key, r.question_id, r.model_name, text,
                                 None if text is not None else "http_500", attempts=1))


def test_empty_requests_never_call_the_backend(tmp_path):
    be = Scripted()
    with PredictionStore(tmp_path / "p.sqlite") as store:
        stats = run_predictions([], be, store)
    assert be.calls == []
    assert stats["requested"] == stats["sent"] == stats["answered"] == stats["errors"] == 0


def test_dedup_cache_and_rerun_sends_nothing(tmp_path):
    reqs = make_requests(30)
    be = Scripted(answer=lambda r: "A " + r.question_id)
    with PredictionStore(tmp_path / "p.sqlite") as store:
        s1 = run_predictions(reqs + reqs[:10], be, store, chunk_size=7, progress=False)
        assert s1 | {"elapsed_s": 0} == {"requested": 40, "unique": 30, "cached": 0, "sent": 30, "answered": 30,
                                         "errors": 0, "errors_by_kind": {}, "elapsed_s": 0}
        s2 = run_predictions(reqs, be, store, progress=False)
        assert s2["sent"] == 0 and s2["cached"] == 30
        assert len(be.calls) == 1 and len(be.calls[0]) == 30
        assert len(store.all()) == 30


def test_failed_requests_are_kept_apart_and_retried(tmp_path):
    reqs = make_requests(10)
    bad = {reqs[2].cache_key, reqs[5].cache_key}
    be = Scripted(answer=lambda r: None if r.cache_key in bad else "fine")
    with PredictionStore(tmp_path / "p.sqlite") as store:
        s1 = run_predictions(reqs, be, store, progress=False)
        assert (s1["answered"], s1["errors"], s1["errors_by_kind"]) == (8, 2, {"http_500": 2})
        assert store.answered_keys() == {r.cache_key for r in reqs} - bad
        errs = store.errors()
        assert set(errs.cache_key) == bad and set(errs.error_kind) == {"http_500"}
        bad.clear()
        s2 = run_predictions(reqs, be, store, progress=False)
        assert (s2["sent"], s2["answered"]) == (2, 2)
        assert len(store.errors()) == 0 and len(store.all()) == 10


def test_backend_failure_keeps_what_arrived(tmp_path):
    reqs = make_requests(25)
    be = Scripted(fail_after=17)
    with PredictionStore(tmp_path / "p.sqlite") as store:
        with pytest.raises(RuntimeError, match="backend broke"):
            run_predictions(reqs, be, store, chunk_size=5, progress=False)
        assert len(store.answered_keys()) == 17


def test_unanswered_requests_recorded_as_no_result(tmp_path):
    reqs = make_requests(6)
    skip = reqs[4].cache_key
    be = Scripted(answer=lambda r: ... if r.cache_key == skip else "x")
    with PredictionStore(tmp_path / "p.sqlite") as store:
        stats = run_predictions(reqs, be, store, progress=False)
        assert stats["errors_by_kind"] == {"no_result": 1}
        assert list(store.errors().cache_key) == [skip]


def test_openai_rerun_with_everything_cached_sends_zero_requests(tmp_path):
    reqs = make_requests(40)
    with FakeOpenAIServer() as srv, PredictionStore(tmp_path / "p.sqlite") as store:
        be = get_backend("openai", {"base_url": srv.base_url, "model": "fake-model"})
        assert run_predictions(reqs, be, store, progress=False)["answered"] == 40
        srv.reset_counters()
        stats = run_predictions(reqs, be, store, progress=False)
        assert stats["sent"] == 0 and srv.stats()["requests"] == 0


CHILD = textwrap.dedent("""
    import sys
    from evaluation_py.backends import get_backend
    from evaluation_py.running.runner import run_predictions
    from evaluation_py.running.store import PredictionStore
    from evaluation_py.testing.requests import make_requests
    url, db, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    be = get_backend("openai", {"base_url": url, "model": "fake-model", "concurrency": 4})
    run_predictions(make_requests(n), be, PredictionStore(db), chunk_size=10, progress=False,
                    flush_interval_s=600)
    print("FINISHED")
""")


def _answered_in(db: Path) -> set[str]:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return {k for (k,) in con.execute("SELECT cache_key FROM predictions")}
        finally:
            con.close()
    except sqlite3.OperationalError:
        return set()  # not created yet


def test_killed_run_resumes_without_loss_or_duplicates(tmp_path):
    n = 300
    reqs = make_requests(n)
    db = tmp_path / "p.sqlite"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with FakeOpenAIServer(latency_s=0.02) as srv:
        child = subprocess.Popen([sys.executable, str(script), srv.base_url, str(db), str(n)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30
        while len(_answered_in(db)) < 40 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        out, err = child.communicate(timeout=10)
        assert "FINISHED" not in out, err
        stored_at_kill = _answered_in(db)
        assert 40 <= len(stored_at_kill) < n and len(stored_at_kill) % 10 == 0  # whole chunks only
        sent_before = dict(srv.attempts)
        srv.reset_counters()

        with PredictionStore(db) as store:
            be = get_backend("openai", {"base_url": srv.base_url, "model": "fake-model", "concurrency": 4})
            stats = run_predictions(reqs, be, store, chunk_size=10, progress=False)
            df = store.all(include_errors=True)
        resent = set(srv.attempts)
    keys_by_q = {r.question_id: r.cache_key for r in reqs}
    assert stats["cached"] == len(stored_at_kill) and stats["sent"] == n - len(stored_at_kill)
    assert not {keys_by_q[q] for q in resent} & stored_at_kill  # nothing stored was sent again
    assert all(v == 1 for v in srv.attempts.values())
    assert len(df) == n and df.cache_key.is_unique and set(df.cache_key) == set(keys_by_q.values())
    assert (df.response == "ECHO: " + df.question_id).all()
    # Requests in flight when killed (at most a chunk plus the concurrency) are the only ones sent twice.
    twice = set(sent_before) & resent
    assert len(twice) <= 10 + 4


STREAMING_CHILD = textwrap.dedent("""
    import sys
    from evaluation_py.backends import get_backend
    from evaluation_py.running.runner import run_predictions
    from evaluation_py.running.store import PredictionStore
    from evaluation_py.testing.requests import make_requests
    url, db, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    be = get_backend("openai", {"base_url": url, "model": "fake-model", "concurrency": 2})
    # chunks far larger than the run: only the flush cadence writes answers before the end
    run_predictions(make_requests(n), be, PredictionStore(db), chunk_size=100000, progress=False)
    print("FINISHED")
""")
# The run's own bound is one second; the rest is room for a loaded machine (the old cadence was 5 s).
LOSS_BOUND_S = 1.0 + 1.0


@pytest.mark.timeout(180)
def test_a_killed_run_sends_again_at_most_the_last_second_of_answers(tmp_path):
    n, latency = 600, 0.05
    reqs = make_requests(n)
    keys_by_q = {r.question_id: r.cache_key for r in reqs}
    db = tmp_path / "p.sqlite"
    script = tmp_path / "child.py"
    script.write_text(STREAMING_CHILD)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with FakeOpenAIServer(latency_s=latency) as srv:
        child = subprocess.Popen([sys.executable, str(script), srv.base_url, str(db), str(n)], env=env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not srv.answered and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.02)
        time.sleep(8.5)  # answers stream for a while: several flushes, none of them a chunk
        killed_at = time.monotonic()
        os.kill(child.pid, signal.SIGKILL)
        out, err = child.communicate(timeout=10)
        assert "FINISHED" not in out, err
        answered_at = {key: t + latency for t, key, attempt, fault in list(srv.events) if fault == "ok"}
        stored = _answered_in(db)
        srv.reset_counters()
        with PredictionStore(db) as store:
            be = get_backend("openai", {"base_url": srv.base_url, "model": "fake-model", "concurrency": 16})
            stats = run_predictions(reqs, be, store, chunk_size=10, progress=False)
        resent = set(srv.attempts)
    answered_before = {q for q, t in answered_at.items() if t < killed_at}
    assert len(answered_before) > 40 and stored, (len(answered_before), len(stored), err)
    assert stats["cached"] == len(stored) and not {keys_by_q[q] for q in resent} & stored
    lost = answered_before & resent  # answered by the server before the kill, and asked again after it
    ages = sorted(killed_at - answered_at[q] for q in lost)
    assert not ages or ages[-1] <= LOSS_BOUND_S, (len(lost), ages[-5:])


def test_progress_bar_output():
    s = io.StringIO()
    Progress(0, stream=s).update(0)
    p = Progress(5, stream=s, enabled=False)
    p.update(5)
    p.close()
    assert s.getvalue() == ""
    p = Progress(1000, desc="openai", stream=s, log_interval_s=3600)
    for _ in range(1000):
        p.update()
    p.close()
    lines = s.getvalue().splitlines()
    assert len(lines) == 2  # first update, then throttled until the final line
    assert re.fullmatch(r"\d\d:\d\d:\d\d  openai \[#{24}\] 1000/1000 .*/s .*", lines[-1]), lines[-1]
    assert "ETA 00:00" in lines[-1]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_writes_whole_lines_only():
    # dbt prints its own lines from other threads meanwhile: a bar redrawn in place ("\r") would be
    # spliced into them, so every write is one whole, timestamped line.
    s = _Terminal()
    writes = []
    s.write = lambda text: writes.append(text) or len(text)
    p = Progress(3, desc="gemma", stream=s, log_interval_s=0)
    for _ in range(3):
        p.update()
    p.close()
    assert len(writes) == 4  # every update (no throttling here) and the final line
    for text in writes:
        assert "\r" not in text and text.endswith("\n") and text.count("\n") == 1, repr(text)
        assert re.match(r"\d\d:\d\d:\d\d  gemma \[", text), repr(text)


def test_progress_bar_counts_failures(tmp_path, capsys):
    reqs = make_requests(10)
    with PredictionStore(tmp_path / "s.sqlite") as st:
        be = Scripted(answer=lambda r: None if r.question_id in {"q2", "q5", "q7"} else "ok")
        run_predictions(reqs, be, st, progress=True)
    lines = capsys.readouterr().err.strip().splitlines()
    # the end: one line per model and kind with what was sent, taken from the store and failed
    assert "fake (generate, scripted): sent 10, cached 0, failed 3" in lines[-1], lines
    assert "/s" not in "".join(lines) and "ETA" not in "".join(lines)  # 10 results in no time: no rate yet


def test_progress_shows_rate_and_eta_only_after_20_results():
    import io

    from evaluation_py.running.progress import Progress

    stream = io.StringIO()
    bar = Progress(100, desc="m", stream=stream, log_interval_s=0)
    bar.update(5)
    bar.update(14, failed=1)
    assert "/s" not in stream.getvalue() and "19/100 (1 failed)" in stream.getvalue()
    bar.update(1)
    last = stream.getvalue().splitlines()[-1]
    assert "20/100 (1 failed)" in last and "/s" in last and "ETA" in last


def test_progress_shows_rate_and_eta_after_10_seconds_whatever_the_count():
    now = [100.0]
    stream = io.StringIO()
    bar = Progress(100, desc="m", stream=stream, log_interval_s=0, clock=lambda: now[0])
    bar.update(3)
    now[0] += 9.5
    bar.update(1)
    assert "/s" not in stream.getvalue() and "ETA" not in stream.getvalue()
    now[0] += 0.5  # 10 s: 4 results, a rate of 0.4/s
    bar.update(0)
    last = stream.getvalue().splitlines()[-1]
    assert "4/100 0.4/s elapsed 00:10 ETA 04:00" in last, last


def test_each_model_and_kind_ends_with_one_line_cached_answers_too(tmp_path, capsys):
    import pandas as pd

    from evaluation_py.backends import BenchmarkLookup
    from evaluation_py.configuration.model_specs import parse_eval_models
    from evaluation_py.running.predictions import predict, predict_pending, requests_table
    from evaluation_py.running.requests import build_requests

    questions = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "table_id": ["t1"] * 3, "source": ["synthetic"] * 3,
                              "dataset": ["toy"] * 3, "template_id": ["T1"] * 3,
                              "question": ["Sales in 2021?", "Sales in 2020?", "Total?"],
                              "answer_gt": ["{32}", "{10}", "{42}"]})
    tables = pd.DataFrame({"table_id": ["t1"], "html": ["<table></table>"], "csv": ["a\n1\n"], "markdown": ["| a |"]})
    benchmark = BenchmarkLookup(questions, tables)
    specs = parse_eval_models([{"name": "o", "backend": "oracle"}, {"name": "h", "backend": "header_match"}])
    requests = [r for s in specs for r in build_requests(s, questions, tables, 42, benchmark)]
    store = tmp_path / "p.sqlite"

    def end_lines() -> list[str]:
        return [line.split("  ", 1)[1] for line in capsys.readouterr().err.splitlines() if ": sent " in line]

    predict(specs[:1], requests, set(), store, benchmark=benchmark)
    lines = end_lines()
    assert len(lines) == 1 and lines[0].startswith("o (generate, oracle): sent 3, cached 0, failed 0, elapsed ")
    predict(specs, requests, set(), store, benchmark=benchmark)  # o: all in the store; h: sent
    lines = end_lines()
    assert lines[0] == "o (generate, oracle): sent 0, cached 3, failed 0" and len(lines) == 2
    assert lines[1].startswith("h (generate, header_match): sent 3, cached 0, failed 0, elapsed ")
    # a build that finds every answer stored sends nothing and names this build's models only
    rows = requests_table(requests).assign(this_build=lambda f: f["model_name"] == "h")
    out = predict_pending(rows, set(), store, make_inputs=lambda: pytest.fail("nothing is rendered"))
    assert len(out) == 6 and end_lines() == ["h (generate, header_match): sent 0, cached 3, failed 0"]
