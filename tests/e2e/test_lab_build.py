"""Results a lab keeps: builds on one database add models (the baselines always there), every run is
recorded, the leaderboard and the comparisons find planted effects, a stopped build resumes exactly.

Few builds, many assertions each: the small benchmark (one domain, one replica) is built once
(`benchmark_base`), then evaluation-only builds on a copy of it.
"""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from support.dbt_project import (HEAVY_TAGS, _dbt_command, build_vars, clone, query, requests_for, run_dbt, server_key,
                                 store_keys)
from support.processes import descendants, sandbox_cgroups, still_alive

ACCUMULATE = {"eval_scope": "accumulate"}
# The evaluation marts only (the analyses read them and are tested elsewhere); the small benchmark is
# built without benchmark_relational_cells, which the fingerprint test reads.
EVAL = ("--select", "models/evaluation", "--exclude", "assert_marts_share_one_build_fingerprint")


def _replay(path: Path, answers: dict[str, str]) -> str:
    path.write_text("".join(json.dumps({"id": q, "response": a}) + "\n" for q, a in sorted(answers.items())))
    return str(path)


def _analysis_marts(project: Path) -> list[str]:
    """The analysis marts with a model_name column and rows."""
    marts = [t for (t,) in query(project, """select table_name from information_schema.columns where table_schema = 'main'
                                             and table_name like 'analysis_%' and column_name = 'model_name'""")]
    return [m for m in marts if query(project, f"select count(*) from {m}")[0][0]]


def _models(project: Path, mart: str) -> set[str]:
    return {m for (m,) in query(project, f"select distinct model_name from {mart}")}


def _leaderboard(project: Path, model: str, metric: str = "cc") -> tuple:
    rows = query(project, """select mean, ci_low, ci_high, n_questions, n_tables from eval_leaderboard
                             where model_name = ? and scoring_mode = 'strict' and metric = ?""", [model, metric])
    assert len(rows) == 1, (model, metric, rows)
    return tuple(rows[0])


def test_builds_add_models_and_record_runs(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    questions = query(project, "select question_id, table_id, answer_gt from benchmark_questions "
                               "where variant = 'original' order by question_id")
    tables = sorted({t for _, t, _ in questions})
    half = set(tables[: len(tables) // 2])
    right = {q: a for q, _, a in questions}
    # beta answers the questions of half the tables right and the rest wrong: a planted difference
    beta_answers = {q: (a if t in half else "no such value") for q, t, a in questions}
    alpha = {"name": "alpha", "backend": "replay", "path": _replay(tmp_path / "alpha.jsonl", right)}
    twin = {"name": "twin", "backend": "replay", "path": alpha["path"]}
    beta = {"name": "beta", "backend": "replay", "path": _replay(tmp_path / "beta.jsonl", beta_answers)}

    run_dbt(project, "build", *EVAL, "--vars", build_vars(eval_models=[alpha, twin], **ACCUMULATE))
    # the second build through the console script, as a user would: an entry file
    (tmp_path / "beta.yml").write_text(json.dumps([beta]))
    small = json.loads(build_vars(**ACCUMULATE))
    argv, env = _dbt_command(project, [], None)
    hctqa = Path(argv[0]).parent / "hctqa"
    proc = subprocess.run([str(hctqa), "eval", str(tmp_path / "beta.yml"), "--project-dir", str(project), "--vars",
                           json.dumps(small), "--exclude", "models/analysis", *EVAL[3:]], capture_output=True, text=True, env=env,
                          timeout=1200)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    printed = [line for line in proc.stdout.splitlines() if line.startswith(("beta |", "oracle |", "alpha |"))]
    assert {line.split(" | ")[0] for line in printed} == {"beta", "oracle"}  # its models and the baselines

    # 1. both builds' models, and the baselines, in every mart
    everyone = {"alpha", "twin", "beta", "oracle", "header_match"}
    for mart in ("eval_requests", "eval_predictions", "eval_scores", "eval_summary", "eval_leaderboard"):
        assert _models(project, mart) == everyone, mart
    assert query(project, "select count(*) from eval_predictions where model_name = 'alpha'")[0][0] == len(questions)
    assert query(project, "select count(distinct build_fingerprint) from eval_leaderboard")[0][0] == 1

    # 2. two runs recorded, each with its models, counts and results file; every answer names its run
    runs = query(project, """select run_id, model_name, requests_sent, requests_cached, requests_failed, fingerprint,
                             entries, versions from eval_runs order by started_at, model_name""")
    run_ids = list(dict.fromkeys(r[0] for r in runs))
    assert len(run_ids) == 2
    first = {r[1]: r[2:5] for r in runs if r[0] == run_ids[0]}
    second = {r[1]: r[2:5] for r in runs if r[0] == run_ids[1]}
    assert set(first) == {"alpha", "twin", "oracle", "header_match"} and set(second) == {"beta"}
    assert first["alpha"] == (len(questions), 0, 0) and second["beta"] == (len(questions), 0, 0)
    assert "dbt-core" in json.loads(runs[0][7])
    assert {e["name"] for e in json.loads(runs[0][6])} == {"alpha", "twin", "oracle", "header_match"}
    assert {r for (r,) in query(project, "select distinct run_id from eval_predictions where model_name = 'beta'")} \
        == {run_ids[1]}
    for run_id in run_ids:
        record = json.loads((project / "reports" / "runs" / f"{run_id}.json").read_text())
        assert record["run_id"] == run_id and record["fingerprint"] == runs[0][5]
    record = json.loads((project / "reports" / "runs" / f"{run_ids[1]}.json").read_text())
    cc = [r for r in record["models"]["beta"]["results"] if r["metric"] == "cc"]
    assert len(cc) == 1 and cc[0]["mean"] == pytest.approx(_leaderboard(project, "beta")[0])

    # 3. the leaderboard: oracle [1, 1]; the comparisons find the planted difference, the twins differ by 0
    assert _leaderboard(project, "oracle")[:3] == (1.0, 1.0, 1.0), query(project, "select * from eval_leaderboard")
    assert _leaderboard(project, "alpha")[:3] == (1.0, 1.0, 1.0)
    n_tables = _leaderboard(project, "beta")[4]
    assert n_tables == len(tables)
    cmp = {(a, b): tuple(rest) for a, b, *rest in query(project, """
        select model_a, model_b, mean_difference, ci_low, ci_high, p_value_adjusted, n_tables from eval_model_comparisons
        where scoring_mode = 'strict' and metric = 'cc'""")}
    assert set(cmp) == {("alpha", "beta"), ("alpha", "twin"), ("beta", "twin")}
    diff, low, high, p, nt = cmp[("alpha", "beta")]
    assert diff > 0.2 and low > 0 and p < 0.05 and nt == len(tables)
    assert cmp[("beta", "twin")][0] == pytest.approx(-diff)
    assert cmp[("alpha", "twin")][:3] == (0.0, 0.0, 0.0)

    # 4. a changed entry replaces only its own model's rows; a removed model leaves the marts. This build
    # makes the analyses and the report too: beta, of the second build only, is in every one of them
    wrong = {"name": "alpha", "backend": "replay",
             "path": _replay(tmp_path / "alpha2.jsonl", {q: "no such value" for q in right})}
    run_dbt(project, "build", *EVAL[:2], "models/analysis", *EVAL[2:], *HEAVY_TAGS, "--vars",
            build_vars(eval_models=[wrong], eval_remove_models=["twin"], **ACCUMULATE))
    now = {"alpha", "beta", "oracle", "header_match"}
    assert _models(project, "eval_summary") == now
    for mart in _analysis_marts(project):  # those with rows for the models in them (the pooled fit beside them)
        assert _models(project, mart) - {"__pooled__"} <= now, mart
    for mart in ("analysis_scores_by_template", "analysis_scores_by_table_format", "analysis_answer_verbosity"):
        assert _models(project, mart) == now, mart
    assert {m for (m,) in query(project, "select distinct model_name from analysis_property_regression")} == {
        "alpha", "beta", "header_match", "__pooled__"}  # every model but the oracle, and their pooled fit
    report = (project / "reports" / "index.html").read_text(encoding="utf-8")
    listed = report[report.index("<h3>Models evaluated</h3>"):report.index("<nav>")]
    lead = report[report.index("<section id='leaderboard'>"):]
    lead = lead[:lead.index("</section>")]
    for model in now:
        assert f"<td class='txt'>{model}</td>" in listed and f"<td class='txt'>{model}</td>" in lead, model
    assert "<td class='txt'>twin</td>" not in report
    assert _leaderboard(project, "alpha")[0] == 0.0
    assert query(project, "select count(*) from eval_predictions where model_name = 'alpha'")[0][0] == len(questions)
    assert query(project, "select count(*) from eval_predictions where model_name = 'beta'")[0][0] == len(questions)
    assert len({r for (r,) in query(project, "select distinct run_id from eval_runs")}) == 3

    # 5. this_build: only this build's entries, as before these results accumulated
    run_dbt(project, "build", *EVAL, "--vars", build_vars(eval_models=[beta], eval_scope="this_build"))
    assert _models(project, "eval_summary") == {"beta"}

    # 6. another benchmark (seed) shows none of them, while eval_runs lists both benchmarks
    # (a selection of the new benchmark beside the old one's other marts: the run-end check says the database
    # now mixes two builds, and fails the run)
    proc = run_dbt(project, "build", "--select", "+eval_runs", "+eval_leaderboard", "--exclude", "resource_type:test",
                   "--vars", build_vars(seed=43, **ACCUMULATE), check=False)
    assert proc.returncode != 0 and query(project, "select state from build_status")[0][0] == "incomplete"
    for mart in ("eval_requests", "eval_predictions", "eval_leaderboard"):
        assert _models(project, mart) == {"oracle", "header_match"}, mart
    held = query(project, "select fingerprint, count(distinct model_name) from eval_runs group by 1 order by 2")
    assert len(held) == 2 and held[0][1] == 2 and held[1][1] == 5  # the removed twin's run stays recorded


# ---------------------------------------------------------------------------------------------- stopping
# A stop during an evaluation model of a plain `dbt build`: the terminal's Ctrl-C (SIGINT to the process
# group) or a SIGTERM to dbt alone (kill, a scheduler); each test then builds again and checks that only
# what was missing is sent (or run).
class _Stopped:
    def __init__(self, out: str, returncode: int, at: float, wall: float, pid: int, processes: set[int]):
        self.out, self.returncode, self.at, self.wall, self.pid, self.processes = out, returncode, at, wall, pid, processes

    def line(self) -> str:
        """The one line dbt ends with (no traceback)."""
        assert self.returncode != 0
        assert "Traceback" not in self.out, self.out[-3000:]
        lines = [line for line in self.out.splitlines() if "interrupted:" in line]
        assert len(lines) == 1 and lines[0].endswith("run the same build again to send only the missing ones"), \
            self.out[-3000:]
        assert self.out.strip().splitlines()[-1] == lines[0], self.out[-3000:]  # the last word, no warning after it
        return lines[0]


def _stop_build(project: Path, args: list[str], sig: int, when) -> _Stopped:
    """Start `dbt *args`, send `sig` once `when()` holds, and wait for dbt to end."""
    argv, env = _dbt_command(project, args, None)
    log = project / "stopped_build.out"
    with open(log, "w") as sink:
        proc = subprocess.Popen(argv, cwd=project, env=env, stdout=sink, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True,
                                # a shell's background job starts with SIGINT ignored: let the child have it back
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            deadline = time.monotonic() + 300
            while not when():
                assert proc.poll() is None, "dbt finished before the stop:\n" + log.read_text()[-3000:]
                assert time.monotonic() < deadline, "the build did not get there in time"
                time.sleep(0.05)
            processes = descendants(proc.pid)
            if sig == signal.SIGINT:
                os.killpg(proc.pid, sig)  # as a terminal's Ctrl-C
            else:
                os.kill(proc.pid, sig)  # dbt alone
            at, wall = time.monotonic(), time.time()
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
    return _Stopped(log.read_text(), proc.returncode, at, wall, proc.pid, processes)


def _last_request(srv) -> float:
    with srv._lock:
        return max(t for t, *_ in srv.events)


def _store(project: Path, sql: str) -> list[tuple]:
    """Rows of the build's prediction store (none before it is made)."""
    path = project / "cache" / "predictions.sqlite"
    if not path.exists():
        return []
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute(sql).fetchall()
    except sqlite3.OperationalError:  # its tables are not made yet
        return []
    finally:
        con.close()


# The evaluation's own models: the stop comes in one of them (the marts downstream add nothing here).
STOPPED = ("eval_requests", "eval_predictions")


def test_sigterm_then_sigint_end_sending_and_the_next_builds_send_only_the_missing(benchmark_base, tmp_path):
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(benchmark_base, tmp_path / "p")
    entry = {"name": "slow", "backend": "openai", "model": "m", "sample": 60, "concurrency": 2}
    requests = requests_for(project, [{**entry, "base_url": "http://unused/v1"}])
    key_of = {r.cache_key: server_key(r) for r in requests}
    assert len(key_of) == 60

    with FakeOpenAIServer(latency_s=0.4) as srv:  # 5 answers a second: the stop comes mid-run
        entry["base_url"] = srv.base_url
        args = ["build", "--select", *STOPPED, "--vars", build_vars(eval_models=[entry])]
        stored: set[str] = set()
        # 1. SIGTERM to dbt alone (as kill or a scheduler sends it), 2. SIGINT to its group (a terminal's
        # Ctrl-C); the second build sends none of what the first stored
        for sig in (signal.SIGTERM, signal.SIGINT):
            srv.reset_counters()
            stopped = _stop_build(project, args, sig, lambda: srv.stats()["answered"] >= 10)
            line = stopped.line()
            now = store_keys(project) & set(key_of)
            new = now - stored
            assert not {key_of[k] for k in stored} & set(srv.attempts), sig
            assert 10 - 2 <= len(new) and len(now) < 60, sig  # all that came back (2 may be on the way)
            assert f"interrupted: {len(new)} request(s) answered and stored, {60 - len(now)} left;" in line
            assert _last_request(srv) - stopped.at < 2.0, sig  # the server's clock is time.monotonic too
            # the model's end line: what this build sent before the stop
            assert f"slow (generate, openai): sent {len(new)}, cached {len(stored)}, failed 0" in stopped.out
            stored = now

        srv.reset_counters()
        srv.latency_s = 0.0
        out = run_dbt(project, *args)
        missing = set(key_of) - stored
        assert srv.stats()["requests"] == len(missing)
        assert set(srv.attempts) == {key_of[k] for k in missing} and set(srv.attempts.values()) == {1}
        assert f"slow (generate, openai): sent {len(missing)}, cached {len(stored)}, failed 0" in out.stderr + out.stdout
    assert query(project, "select count(*) from eval_predictions")[0][0] == 60


def test_a_sigterm_during_the_judge_keeps_its_verdicts_and_the_next_build_asks_only_the_rest(benchmark_base, tmp_path):
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(benchmark_base, tmp_path / "p")
    oracle = {"name": "oracle", "backend": "oracle", "sample": 30}
    answer_keys = {r.cache_key for r in requests_for(project, [oracle])}
    with FakeOpenAIServer(latency_s=0.4) as srv:
        judge = {"name": "judge", "backend": "openai", "model": "j", "base_url": srv.base_url, "concurrency": 2,
                 "max_retries": 0}
        args = ["build", "--select", *STOPPED, "eval_judgements", "--vars",
                build_vars(eval_models=[oracle], judge_model=judge)]
        stopped = _stop_build(project, args, signal.SIGTERM, lambda: srv.stats()["answered"] >= 8)
        line = stopped.line()
        # the judge's replies in the store (the fake server echoes each prompt's last message: its key)
        judged = {r[len("ECHO: "):] for (k, r) in _store(project, "select cache_key, response from predictions")
                  if k not in answer_keys}
        assert 8 - 2 <= len(judged) < 30
        # this build's answers: the oracle's 30, then the judge's
        assert f"interrupted: {30 + len(judged)} request(s) answered and stored, {30 - len(judged)} left;" in line
        assert _last_request(srv) - stopped.at < 2.0

        srv.reset_counters()
        srv.latency_s = 0.0
        run_dbt(project, *args)
        assert srv.stats()["requests"] == 30 - len(judged)
        assert not set(srv.attempts) & judged and set(srv.attempts.values()) == {1}
    assert query(project, "select count(*), count(distinct judge_key) from eval_judgements")[0] == (30, 30)


# Each program forks a child that would outlive it and runs a second: a stop must end both, with the sandbox.
SLOW_PROGRAM = """```python
import os, time
if os.fork() == 0:
    time.sleep(60)
    os._exit(0)
time.sleep(1)
answer = {qid!r}
```"""


@pytest.mark.sandbox
def test_a_sigterm_during_code_runs_stops_the_sandboxes_and_the_next_build_runs_only_the_rest(benchmark_base, tmp_path):
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(benchmark_base, tmp_path / "p")
    entry = {"name": "coder", "backend": "openai", "model": "m", "sample": 10, "modes": ["pot"],
             "system_role": False, "max_retries": 0, "concurrency": 2}
    requests = requests_for(project, [{**entry, "base_url": "http://unused/v1"}])
    assert len(requests) == 10
    programs = {server_key(r): SLOW_PROGRAM.format(qid=r.question_id) for r in requests}
    runs = "select execution_key, created_at from executions"
    with FakeOpenAIServer(responses=programs) as srv:
        entry["base_url"] = srv.base_url
        args = ["build", "--select", *STOPPED, "--vars", build_vars(eval_models=[entry])]
        stopped = _stop_build(project, args, signal.SIGTERM, lambda: len(_store(project, runs)) >= 2)
        line = stopped.line()
        done = dict(_store(project, runs))
        assert 2 <= len(done) < 10
        assert f"interrupted: 10 request(s) answered and stored, 0 left; {len(done)} program(s) run and stored, " \
               f"{10 - len(done)} not run;" in line
        assert max(done.values()) - stopped.wall < 2.0  # no program ran to its end after the stop
        # the sandboxes are gone, with every process of their programs, and their cgroups
        assert stopped.processes and still_alive(stopped.processes) == set()
        assert sandbox_cgroups(stopped.pid) == []

        srv.reset_counters()
        run_dbt(project, *args)
        assert srv.stats()["requests"] == 0  # every answer was stored before the programs ran
    again = dict(_store(project, runs))
    assert len(again) == 10 and {k: again[k] for k in done} == done  # the programs run before were not run again
    assert query(project, """select count(*) from eval_predictions where inference_mode = 'pot'
                             and execution_answer = question_id""")[0][0] == 10
