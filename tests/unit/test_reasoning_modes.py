"""The reasoning modes tcot, pot and icot end to end below dbt: scripted replies through the replay
backend and through the loopback OpenAI server (real HTTP), programs run in the real sandbox,
failures recorded with their kind, reruns that send and run nothing, a killed icot run resuming."""
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

from evaluation_py.backends import BenchmarkLookup
from evaluation_py.modes.inference_mode import get_mode, mode_names
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.modes import icot
from evaluation_py.modes.code_blocks import code_blocks, program_of
from evaluation_py.modes.execution import CodeRunner
from evaluation_py.modes.outcomes import executions_table, with_mode_columns
from evaluation_py.running.predictions import predict, requests_table, turns_table
from evaluation_py.running.requests import build_requests
from evaluation_py.sandbox import SandboxUnavailable
from evaluation_py.scoring.scores import scores_table
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(120)

CSV = "Year,Sales\n2020,10\n2021,32\n"
QUESTIONS = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "table_id": ["t1", "t1", "t1"],
                          "source": ["synthetic"] * 3, "dataset": ["toy"] * 3, "template_id": ["T1"] * 3,
                          "question": ["Sales in 2021?", "Sales in 2020?", "Total sales?"],
                          "answer_gt": ["{32}", "{10}", "{42}"]})
TABLES = pd.DataFrame({"table_id": ["t1"], "html": ["<table><tr><td>Year</td><td>Sales</td></tr></table>"],
                       "csv": [CSV], "markdown": ["| Year | Sales |"]})
BENCHMARK = BenchmarkLookup(QUESTIONS, TABLES)


def load_tables():
    return TABLES


def no_tables():
    raise AssertionError("the tables were read: something was run again")


def run(entry: dict, store_path: Path, load=load_tables):
    """predict, then what eval_predictions / eval_executions / eval_scores add, as the dbt models do."""
    specs = parse_eval_models([entry])
    requests = [r for s in specs for r in build_requests(s, QUESTIONS, TABLES, 42, BENCHMARK)]
    out = predict(specs, requests, set(), store_path, progress=False, benchmark=BENCHMARK)
    table = requests_table(requests)
    sandbox_of = {s.name: s.sandbox for s in specs}
    with_cols = with_mode_columns(out, table, store_path, load, sandbox_of)
    executions = executions_table(out, table, store_path, load, sandbox_of)
    scores = scores_table(table, with_cols, QUESTIONS)
    strict = scores[(scores["scoring_mode"] == "strict") & (scores["metric"] == "f1")].set_index("question_id")
    return requests, with_cols.set_index("question_id"), executions, strict


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def executions_rows(store_path: Path) -> list:
    con = sqlite3.connect(store_path)
    try:
        return con.execute("SELECT execution_key, created_at FROM executions ORDER BY 1").fetchall()
    finally:
        con.close()


# ------------------------------------------------------------------ registry and parsing
def test_the_reasoning_modes_are_registered_with_versioned_prompts_and_direct_is_unchanged():
    from evaluation_py.prompting.prompts import PROMPT_VERSION

    assert {"direct", "tcot", "pot", "icot"} <= set(mode_names())
    assert get_mode("direct").prompt_version == PROMPT_VERSION and not get_mode("direct").runs_code
    versions = {m: get_mode(m).prompt_version for m in ("tcot", "pot", "icot")}
    assert versions == {"tcot": "hctqa-tcot-v1", "pot": "hctqa-pot-v1", "icot": "hctqa-icot-v1"}
    assert (get_mode("icot").max_turns, get_mode("pot").answer_source) == (5, "execution")
    system = get_mode("pot").build_messages("T", "csv", "Q?")[0]["content"]
    assert "`df`" in system and "no header inference" in system and "`answer`" in system


def test_code_blocks_and_program_of():
    reply = "Plan.\n```python\nx = 1\n```\nthen\n```\nprint(x)\n```\n```python\n\n```"
    assert code_blocks(reply) == ["x = 1", "print(x)"]
    assert program_of("no code here") == "no code here" and program_of("```py\nanswer = 2") == "answer = 2"


def test_entry_keys_sandbox_and_max_turns_are_checked_and_name_the_entry():
    (spec,) = parse_eval_models([{"name": "r", "backend": "oracle", "modes": ["direct"]}])
    assert (spec.sandbox, spec.max_turns) == ("bubblewrap", None)
    with pytest.raises(ValueError, match=r"entry 1 .*key `sandbox` 'docker' must be one of bubblewrap, rlimits"):
        parse_eval_models([{"name": "r", "backend": "oracle", "sandbox": "docker"}])
    with pytest.raises(ValueError, match=r"entry 1 .*key `max_turns` 0 must be a positive integer"):
        parse_eval_models([{"name": "r", "backend": "replay", "path": __file__, "modes": ["icot"], "max_turns": 0}])
    with pytest.raises(ValueError, match=r"key `max_turns` applies to multi-turn modes"):
        parse_eval_models([{"name": "r", "backend": "oracle", "max_turns": 3}])


def test_direct_keys_ignore_the_sandbox_key_and_icot_keys_follow_it(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [{"qap_id": "q1", "response": "1"}])
    keys = {}
    for sandbox in ("bubblewrap", "rlimits"):
        specs = parse_eval_models([{"name": "r", "backend": "replay", "path": str(path), "sandbox": sandbox,
                                    "modes": ["direct", "icot"]}])
        keys[sandbox] = {(r.inference_mode, r.question_id): r.cache_key
                         for r in build_requests(specs[0], QUESTIONS, TABLES, 42, BENCHMARK)}
    assert all(keys["bubblewrap"][k] == keys["rlimits"][k] for k in keys["rlimits"] if k[0] == "direct")
    assert all(keys["bubblewrap"][k] != keys["rlimits"][k] for k in keys["rlimits"] if k[0] == "icot")


# ------------------------------------------------------------------ tcot and pot through replay
@pytest.mark.sandbox
def test_tcot_and_pot_through_replay_score_the_marked_and_the_executed_answer(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [
        {"qap_id": "q1", "inference_mode": "tcot", "response": "Row 2021, column Sales: 32.\nFinal answer: 32"},
        {"qap_id": "q2", "inference_mode": "tcot", "response": "It is 10."},
        {"qap_id": "q3", "inference_mode": "tcot", "response": "10 + 32\nFinal answer: 42"},
        {"qap_id": "q1", "inference_mode": "pot", "program": "answer = df.iloc[2, 1]"},
        {"qap_id": "q2", "inference_mode": "pot", "response": "Here:\n```python\nprint(df.iloc[1, 1]\n```"},
        {"qap_id": "q3", "inference_mode": "pot",
         "response": "```python\nimport socket\nsocket.create_connection(('1.1.1.1', 80), timeout=2)\n```"},
    ])
    store_path = tmp_path / "p.sqlite"
    entry = {"name": "r", "backend": "replay", "path": str(path), "modes": ["tcot", "pot"]}
    requests, preds, executions, strict = run(entry, store_path)
    tcot, pot = preds[preds["inference_mode"] == "tcot"], preds[preds["inference_mode"] == "pot"]
    assert tcot.loc["q1", "reasoning"] == "Row 2021, column Sales: 32." and tcot.loc["q2", "reasoning"] is None
    assert tcot["sandbox"].isna().all() and tcot["code_blocks"].isna().all()
    assert pot.loc["q1", "execution_answer"] == "32" and pot.loc["q1", "execution_error_kind"] is None
    assert pot.loc["q2", "execution_error_kind"] == "syntax" and pot.loc["q2", "execution_answer"] is None
    assert pot.loc["q3", "execution_error_kind"] == "sandbox_violation"
    assert set(pot["sandbox"]) == {"bubblewrap"} and pot["code_blocks"].tolist() == [1, 1, 1]
    f1 = strict.reset_index().set_index(["inference_mode", "question_id"])["value"]
    assert f1[("tcot", "q1")] == 1.0 and f1[("tcot", "q3")] == 1.0
    assert (f1[("pot", "q1")], f1[("pot", "q2")], f1[("pot", "q3")]) == (1.0, 0.0, 0.0)  # failed runs score 0
    assert sorted(executions["error_kind"].fillna("ok")) == ["ok", "sandbox_violation", "syntax"]

    # A rerun reads answers and runs from the cache: no table is read, nothing runs again.
    before = executions_rows(store_path)
    _, again, executions_again, strict_again = run(entry, store_path, load=no_tables)
    assert executions_rows(store_path) == before
    pd.testing.assert_frame_equal(again, preds)
    pd.testing.assert_frame_equal(executions_again, executions)


@pytest.mark.sandbox
def test_pot_failure_kinds_timeout_memory_output_limit_runtime(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [
        {"qap_id": "q1", "inference_mode": "pot", "program": "while True:\n    pass"},
        {"qap_id": "q2", "inference_mode": "pot", "program": "x = bytearray(20 * 1024 ** 3)"},
        {"qap_id": "q3", "inference_mode": "pot", "program": "answer = int(df.iloc[0, 1])"},
    ])
    _, preds, _, strict = run({"name": "r", "backend": "replay", "path": str(path), "modes": ["pot"]},
                              tmp_path / "p.sqlite")
    assert preds["execution_error_kind"].to_dict() == {"q1": "timeout", "q2": "memory", "q3": "runtime"}
    assert "ValueError" in preds.loc["q3", "execution_output"]
    assert strict["value"].tolist() == [0.0, 0.0, 0.0]


def test_replay_lines_of_an_unknown_mode_or_bad_turns_name_the_file_and_line(tmp_path):
    from evaluation_py.backends.replay_backend import read_responses

    bad = write_jsonl(tmp_path / "bad.jsonl", [{"qap_id": "q1", "response": "1"},
                                               {"qap_id": "q1", "inference_mode": "zcot", "response": "1"}])
    with pytest.raises(ValueError, match=r"bad.jsonl:2: unknown inference_mode 'zcot'"):
        read_responses(bad)
    bad = write_jsonl(tmp_path / "bad2.jsonl", [{"qap_id": "q1", "inference_mode": "icot", "turns": "x"}])
    with pytest.raises(ValueError, match=r"bad2.jsonl:1: 'turns' must be a non-empty list"):
        read_responses(bad)
    bad = write_jsonl(tmp_path / "bad3.jsonl", [{"qap_id": "q1", "inference_mode": "tcot", "program": "x"}])
    with pytest.raises(ValueError, match=r"bad3.jsonl:1: 'program' is for modes that run code"):
        read_responses(bad)


# ------------------------------------------------------------------ icot through replay
ICOT_TURNS = ["First the 2021 sales.\n```python\nx = df.iloc[2, 1]\nprint(x)\n```",
              "```python\nprint(undefined_name)\n```",
              "Now the total.\n```python\nprint(int(x) + int(df.iloc[1, 1]))\n```",
              "The total is 42.\nFinal answer: 42"]


@pytest.mark.sandbox
def test_icot_through_replay_runs_blocks_in_one_session_and_ends_at_the_marker(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [
        {"qap_id": "q3", "inference_mode": "icot", "turns": ICOT_TURNS},
        {"qap_id": "q1", "inference_mode": "icot", "transcript": [
            {"role": "user", "content": "their prompt"}, {"role": "assistant", "content": "I think 32."},
            {"role": "user", "content": "their nudge"}, {"role": "assistant", "content": "Final answer: 32"}]},
        {"qap_id": "q2", "inference_mode": "icot", "turns": ["```python\nprint(1)\n```"] * 2},
    ])
    store_path = tmp_path / "p.sqlite"
    entry = {"name": "r", "backend": "replay", "path": str(path), "modes": ["icot"], "max_turns": 3}
    requests, preds, executions, strict = run(entry, store_path)
    # max_turns 3: q3 stops at its third reply, whose code never runs; q2's file ends after 2 replies while
    # its episode (no marker) wants a third: that turn is missing, the episode unanswered.
    assert sorted(preds.index) == ["q1", "q3"]
    assert preds.loc["q1", "code_blocks"] == 0 and preds.loc["q1", "sandbox"] is None
    assert strict.loc["q1", "value"] == 1.0 and strict.loc["q2", "value"] == 0.0
    assert (preds.loc["q3", "turn"], preds.loc["q3", "code_blocks"]) == (2, 2)
    assert preds.loc["q3", "execution_error_kind"] == "runtime"  # the last block run failed

    entry["max_turns"] = 5  # another episode (its keys cover max_turns): it runs to the marker
    requests, preds, executions, strict = run(entry, store_path)
    assert preds.loc["q3", "turn"] == 3 and preds.loc["q3", "code_blocks"] == 3
    assert preds.loc["q3", "execution_error_kind"] is None and preds.loc["q3", "sandbox"] == "bubblewrap"
    assert preds.loc["q3", "reasoning"] == "The total is 42." and strict.loc["q3", "value"] == 1.0
    q3 = executions[executions["question_id"] == "q3"]
    assert q3["turn"].tolist() == [0, 1, 2] and q3["error_kind"].tolist() == [None, "runtime", None]
    assert q3["answer"].tolist() == ["32", None, "42"]  # x persisted from turn 0 to turn 2
    turns = turns_table(requests_table(requests), store_path)
    follow = turns[turns["question_id"] == "q3"]["user_message"].tolist()
    assert follow[0] is None and follow[1] == "Your code printed:\n32"
    assert follow[2].startswith("Your code failed (runtime): NameError: name 'undefined_name' is not defined")
    assert follow[3] == "Your code printed:\n42"
    assert "q2" not in preds.index


# ------------------------------------------------------------------ over HTTP: the loopback server
def icot_script(runner: CodeRunner, replies: list[str], prompt: str) -> dict[str, str]:
    """The server's answers keyed by the user message each reply follows (the follow-ups computed by
    the mode itself, in a sandbox of the test's own)."""
    transcript, script = ({"role": "user", "content": prompt},), {}
    for reply in replies:
        script[transcript[-1]["content"]] = reply
        transcript += ({"role": "assistant", "content": reply},)
        follow = icot.next_message(transcript, lambda blocks: runner.run("bubblewrap", "t1", blocks, session=True))
        if follow is None:
            break
        transcript += ({"role": "user", "content": follow},)
    return script


def http_entry(base_url: str) -> dict:
    return {"name": "m", "backend": "openai", "model": "fake-model", "base_url": base_url,
            "modes": ["icot", "pot"], "max_retries": 0, "concurrency": 1, "sample": 1, "sources": ["synthetic"],
            "system_role": False}  # one user message per mode: the server tells them apart


def http_script(tmp_path: Path) -> tuple[dict, str]:
    specs = parse_eval_models([http_entry("http://127.0.0.1:9")])
    requests = build_requests(specs[0], QUESTIONS, TABLES, 42, BENCHMARK)
    prompts = {r.inference_mode: r.messages[-1]["content"] for r in requests}
    qid = requests[0].question_id
    with CodeRunner(tmp_path / "script.sqlite", BENCHMARK.table_texts) as runner:
        script = icot_script(runner, ICOT_TURNS, prompts["icot"])
    script[prompts["pot"]] = "```python\nanswer = int(df.iloc[1, 1]) + int(df.iloc[2, 1])\n```"
    return script, qid


@pytest.mark.sandbox
def test_icot_and_pot_over_http_then_a_rerun_with_zero_requests(tmp_path):
    script, qid = http_script(tmp_path)
    store_path = tmp_path / "p.sqlite"
    with FakeOpenAIServer(responses=script) as srv:
        _, preds, executions, _ = run(http_entry(srv.base_url), store_path)
        assert srv.stats()["requests"] == 5  # four icot turns, one pot program
        by_mode = preds.reset_index().set_index("inference_mode")
        assert by_mode.loc["icot", "response"] == ICOT_TURNS[-1] and by_mode.loc["icot", "turn"] == 3
        assert by_mode.loc["pot", "execution_answer"] == "42"
        assert len(executions) == 4
        srv.reset_counters()
        before = executions_rows(store_path)
        _, again, _, _ = run(http_entry(srv.base_url), store_path, load=no_tables)
        assert srv.stats()["requests"] == 0 and executions_rows(store_path) == before
    pd.testing.assert_frame_equal(again, preds)


CHILD = textwrap.dedent("""
    import os, sys
    # the test module's folder (tests/unit) and tests/, where the helpers in tests/support/ are imported from
    sys.path[:0] = [sys.argv[3], os.path.dirname(sys.argv[3])]
    import test_reasoning_modes as t
    from evaluation_py.running.predictions import predict
    specs = t.parse_eval_models([t.http_entry(sys.argv[1])])
    requests = [r for s in specs for r in t.build_requests(s, t.QUESTIONS, t.TABLES, 42, t.BENCHMARK)]
    predict(specs, requests, set(), sys.argv[2], progress=False, benchmark=t.BENCHMARK)
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
        return 0


@pytest.mark.sandbox
def test_icot_run_killed_mid_episode_resumes_at_its_turn_with_the_session_rebuilt(tmp_path):
    script, qid = http_script(tmp_path)
    last_follow_up = [k for k, v in script.items() if v == ICOT_TURNS[-1]][0]
    db = tmp_path / "p.sqlite"
    child_py = tmp_path / "child.py"
    child_py.write_text(CHILD)
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # The last icot turn hangs: the child is killed with the pot answer and icot turns 0-2 stored.
    with FakeOpenAIServer(responses=script, script={last_follow_up: ["slow"] * 10}, slow_s=60) as srv:
        child = subprocess.Popen([sys.executable, str(child_py), srv.base_url, str(db), str(Path(__file__).parent)],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while (_stored(db) < 4 or srv.stats()["in_flight"] < 1) and time.monotonic() < deadline \
                and child.poll() is None:
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        out, err = child.communicate(timeout=10)
        assert "FINISHED" not in out, err
        assert _stored(db) == 4
    # Forget every run: the resumed turn's follow-up must be rebuilt from the transcript alone.
    con = sqlite3.connect(db)
    con.execute("DELETE FROM executions")
    con.commit()
    con.close()
    with FakeOpenAIServer(responses=script) as srv:
        _, preds, executions, _ = run(http_entry(srv.base_url), db)
        assert srv.stats()["requests"] == 1 and set(srv.attempts) == {last_follow_up}  # only the killed turn
    by_mode = preds.reset_index().set_index("inference_mode")
    assert by_mode.loc["icot", "response"] == ICOT_TURNS[-1] and by_mode.loc["icot", "turn"] == 3


# ------------------------------------------------------------------ no bubblewrap
def test_without_bubblewrap_pot_and_icot_refuse_before_any_request_unless_rlimits(tmp_path, monkeypatch):
    empty = tmp_path / "bin"
    empty.mkdir()
    with FakeOpenAIServer() as srv:
        monkeypatch.setenv("PATH", str(empty))
        with pytest.raises(SandboxUnavailable, match=r"entry 'm' .*apt-get install bubblewrap.*sandbox: rlimits"):
            run(http_entry(srv.base_url), tmp_path / "p.sqlite")
        assert srv.stats()["requests"] == 0
        monkeypatch.setenv("PATH", os.environ.get("PATH", "") + os.pathsep + "/usr/bin:/bin")
    path = write_jsonl(tmp_path / "r.jsonl", [{"qap_id": "q1", "inference_mode": "pot", "program": "answer = 7"}])
    monkeypatch.setenv("PATH", str(empty))
    _, preds, _, _ = run({"name": "r", "backend": "replay", "path": str(path), "modes": ["pot"],
                          "sandbox": "rlimits", "sample": 1, "sources": ["synthetic"]}, tmp_path / "q.sqlite")
    assert preds["sandbox"].tolist() == ["rlimits"]
