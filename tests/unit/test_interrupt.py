"""Stopping an evaluation (evaluation_py.running.interrupt) below dbt: a stop over real HTTP sends nothing
more and keeps what came back, a stop during a code run kills its sandbox and every process of the
program, SIGTERM is routed into Ctrl-C's path only on the main thread. The stop of a whole `dbt build`,
on SIGINT and SIGTERM, is in tests/e2e/test_lab_build.py."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from evaluation_py.backends import Backend, Prediction, get_backend
from evaluation_py.running import interrupt
from evaluation_py.running.runner import run_predictions
from evaluation_py.running.store import PredictionStore
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer
from evaluation_py.testing.requests import make_requests
from support import dbt_forkserver
from support.processes import descendants, sandbox_cgroups, still_alive

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def fresh_stop():
    interrupt.reset()
    yield
    interrupt.reset()


def _stop_when(condition, deadline_s: float = 60.0) -> dict:
    """A thread that requests the stop once `condition()` holds; the returned dict gets its time."""
    out: dict = {}

    def watch():
        end = time.monotonic() + deadline_s
        while not condition() and time.monotonic() < end:
            time.sleep(0.02)
        out["at"] = time.monotonic()
        interrupt.request_stop(exit_process=False)

    threading.Thread(target=watch, daemon=True).start()
    return out


def test_a_stop_sends_nothing_more_keeps_what_came_back_and_the_rerun_sends_the_rest(tmp_path):
    requests = make_requests(30)
    with FakeOpenAIServer(latency_s=0.15) as srv, PredictionStore(tmp_path / "p.sqlite") as store:
        backend = get_backend("openai", {"base_url": srv.base_url, "model": "fake-model", "concurrency": 2})
        stop = _stop_when(lambda: srv.stats()["answered"] >= 6)
        with pytest.raises(interrupt.EvaluationInterrupted) as info:
            run_predictions(requests, backend, store, progress=False)
        backend.close()
        with srv._lock:
            last_request = max(t for t, *_ in srv.events)
        stored = store.answered_keys()
        # what came back is stored: all but those still on the way when the stop came (the concurrency)
        assert 6 - 2 <= len(stored) < 30
        assert last_request - stop["at"] < 2.0  # nothing new after the stop (those in flight finish)
        assert info.value.stats["answered"] == len(stored)
        assert str(info.value).startswith(f"interrupted: {len(stored)} request(s) answered and stored, "
                                          f"{30 - len(stored)} left; run the same build again")

        # the stopped run's backend thread ends once its requests in flight are back (in dbt the process ends)
        deadline = time.monotonic() + 30
        while any(t.name == "prediction-backend" for t in threading.enumerate()) and time.monotonic() < deadline:
            time.sleep(0.05)
        interrupt.reset()
        srv.reset_counters()
        backend = get_backend("openai", {"base_url": srv.base_url, "model": "fake-model", "concurrency": 2})
        stats = run_predictions(requests, backend, store, progress=False)
        backend.close()
        assert stats["cached"] == len(stored) and srv.stats()["requests"] == 30 - len(stored)
        assert all(n == 1 for n in srv.attempts.values())
        assert not {r.question_id for r in requests if r.cache_key in stored} & set(srv.attempts)


class _StopsMidway(Backend):
    """Hands over every answer at once, asking for the stop half-way, then hangs as a slow server would."""

    name = "stops_midway"

    def __init__(self):
        super().__init__({})
        self.release = threading.Event()

    def run(self, requests, on_result):
        for i, r in enumerate(requests):
            if i == len(requests) // 2:
                interrupt.request_stop(exit_process=False)
            on_result(Prediction(r.cache_key, r.question_id, r.model_name, "ok", None, attempts=1))
        self.release.wait(30)


def test_every_answer_handed_over_before_the_stop_is_seen_is_stored(tmp_path):
    requests = make_requests(200)
    backend = _StopsMidway()
    with PredictionStore(tmp_path / "p.sqlite") as store:
        t0 = time.monotonic()
        with pytest.raises(interrupt.EvaluationInterrupted) as info:
            run_predictions(requests, backend, store, progress=False, chunk_size=10**6)
        backend.release.set()
        assert time.monotonic() - t0 < 10  # the hung backend was not waited for
        assert len(store.answered_keys()) == info.value.stats["answered"] == 200


def test_a_stop_before_a_run_sends_nothing_and_counts_it_left(tmp_path):
    interrupt.request_stop(exit_process=False)
    with FakeOpenAIServer() as srv, PredictionStore(tmp_path / "p.sqlite") as store:
        backend = get_backend("openai", {"base_url": srv.base_url, "model": "fake-model"})
        with pytest.raises(interrupt.EvaluationInterrupted, match=r"0 request\(s\) answered and stored, 5 left"):
            run_predictions(make_requests(5), backend, store, progress=False)
        assert srv.stats()["requests"] == 0


# Forks a child that outlives it, then sleeps past the stop: both must end with the sandbox.
FORKING_SLEEPER = textwrap.dedent("""
    import os, time
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    time.sleep(60)
    answer = 1
""")
TABLE = {"html": "<table><tr><td>a</td></tr><tr><td>1</td></tr></table>", "markdown": "| a |\n|---|\n| 1 |",
         "csv": "a\n1\n"}


@pytest.mark.sandbox
@pytest.mark.parametrize("session", [False, True], ids=["pot-program", "icot-session"])
def test_a_stop_kills_the_running_program_with_its_sandbox_and_leaves_no_process(tmp_path, session):
    from evaluation_py.modes.execution import CodeRunner, ExecutionCache, execution_key

    warm, outcome = threading.Event(), {}

    def mine() -> set[int]:  # this test's processes, not the session's builds (tests/support/shared_builds.py)
        return descendants(os.getpid(), skip_programs=frozenset({"dbt", dbt_forkserver.SCRIPT.name}))

    def evaluate():  # the runner lives in one thread, as in an evaluation model
        try:
            with CodeRunner(tmp_path / "p.sqlite", lambda table_id, question_id=None: TABLE) as runner:
                outcome["first"] = runner.run("bubblewrap", "t", ["answer = 1"], session=session)
                outcome["warm"] = mine()  # the pool's worker, up
                warm.set()
                try:
                    runner.run("bubblewrap", "t", [FORKING_SLEEPER], session=session)
                except BaseException as exc:  # noqa: BLE001 - looked at below
                    outcome["error"] = exc
                outcome["stopped_in"] = time.monotonic() - outcome.get("stopped_at", float("nan"))
                try:
                    runner.run("bubblewrap", "t", ["answer = 2"], session=session)
                except BaseException as exc:  # noqa: BLE001
                    outcome["after"] = exc
        finally:
            warm.set()

    worker = threading.Thread(target=evaluate)
    worker.start()
    assert warm.wait(60) and "warm" in outcome, outcome
    assert outcome["first"][0]["answer"] == "1"
    deadline = time.monotonic() + 30
    while len(mine() - outcome["warm"]) < 2:  # the program and its child
        assert time.monotonic() < deadline and worker.is_alive(), f"the program did not start: {outcome}"
        time.sleep(0.05)
    running = mine()
    outcome["stopped_at"] = time.monotonic()
    interrupt.request_stop(exit_process=False)
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert outcome["stopped_in"] < 2.0  # not the program's 5 s limit: its sandbox was killed
    assert isinstance(outcome.get("error"), interrupt.EvaluationInterrupted), outcome
    assert isinstance(outcome.get("after"), interrupt.EvaluationInterrupted), outcome  # nothing else runs
    cache = ExecutionCache(tmp_path / "p.sqlite")
    try:
        assert cache.get(execution_key("bubblewrap", TABLE, [FORKING_SLEEPER], session)) is None
        assert cache.get(execution_key("bubblewrap", TABLE, ["answer = 1"], session)) is not None
    finally:
        cache.close()
    assert still_alive(running) == set()
    assert sandbox_cgroups(os.getpid()) == []


ROUTED_CHILD = textwrap.dedent("""
    import os, signal, threading
    from evaluation_py.running import interrupt
    off_main = []
    t = threading.Thread(target=lambda: off_main.append(interrupt.route_sigterm_to_ctrl_c()))
    t.start(); t.join()
    print("off main thread:", off_main[0])
    print("main thread:", interrupt.route_sigterm_to_ctrl_c())
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pause()
    except KeyboardInterrupt:
        print("KeyboardInterrupt")
""")
OWN_HANDLER_CHILD = textwrap.dedent("""
    import signal
    from evaluation_py.running import interrupt
    mine = lambda signum, frame: None
    signal.signal(signal.SIGTERM, mine)
    print("routed:", interrupt.route_sigterm_to_ctrl_c(), signal.getsignal(signal.SIGTERM) is mine)
""")


def test_sigterm_raises_keyboard_interrupt_once_routed_on_the_main_thread_only():
    out = subprocess.run([sys.executable, "-c", ROUTED_CHILD], capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == ["off main thread: False", "main thread: True", "KeyboardInterrupt"], out
    out = subprocess.run([sys.executable, "-c", OWN_HANDLER_CHILD], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "routed: False True", out  # a handler of someone else's is left alone


# A step that unwinds at the stop, then keeps printing, as dbt's worker thread reports the stopped model
LATE_PRINTER_CHILD = textwrap.dedent("""
    import sys, threading, time
    from evaluation_py.running import interrupt
    inside = threading.Event()

    def step():
        with interrupt.active():
            interrupt.count(answered=3, missing=2)
            inside.set()
            while not interrupt.stopping():
                time.sleep(0.001)
        for i in range(5000):  # whole lines, as a logging handler writes them
            sys.stdout.write(f"ERROR creating python table model {i}\\n")
            sys.stdout.flush()
            sys.stderr.write(f"late warning {i}\\n")

    threading.Thread(target=step).start()
    inside.wait()
    interrupt.request_stop(exit_process=True)
""")


def test_the_stop_line_is_the_last_word_whatever_other_threads_print():
    for _ in range(3):
        proc = subprocess.run([sys.executable, "-c", LATE_PRINTER_CHILD], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=60)
        assert proc.returncode == 130
        assert proc.stdout.strip().splitlines()[-1] == (
            "interrupted: 3 request(s) answered and stored, 2 left; run the same build again to send only the "
            "missing ones"), proc.stdout[-500:]
