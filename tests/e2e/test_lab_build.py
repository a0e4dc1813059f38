"""Results a lab keeps: builds on one database add models (the baselines always there), every run is
recorded, the leaderboard and the comparisons find planted effects, a stopped build resumes exactly.

Few builds, many assertions each: the small benchmark (one domain, one replica) is built once
(`benchmark_base`), then evaluation-only builds on a copy of it.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from support.dbt_project import _dbt_command, build_vars, clone, query, requests_for, run_dbt, server_key, store_keys

ACCUMULATE = {"eval_scope": "accumulate"}
# The evaluation marts only (the analyses read them and are tested elsewhere); the small benchmark is
# built without benchmark_relational_cells, which the fingerprint test reads.
EVAL = ("--select", "models/evaluation", "--exclude", "assert_marts_share_one_build_fingerprint")


def _replay(path: Path, answers: dict[str, str]) -> str:
    path.write_text("".join(json.dumps({"id": q, "response": a}) + "\n" for q, a in sorted(answers.items())))
    return str(path)


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

    # 4. a changed entry replaces only its own model's rows; a removed model leaves the marts
    wrong = {"name": "alpha", "backend": "replay",
             "path": _replay(tmp_path / "alpha2.jsonl", {q: "no such value" for q in right})}
    run_dbt(project, "build", *EVAL, "--vars", build_vars(eval_models=[wrong], eval_remove_models=["twin"],
                                                           **ACCUMULATE))
    assert _models(project, "eval_summary") == {"alpha", "beta", "oracle", "header_match"}
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


def _spawn(project: Path, *args: str) -> subprocess.Popen:
    argv, env = _dbt_command(project, args, None)
    return subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True,
                            # a shell's background job starts with SIGINT ignored: let the child have it back
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_sigint_stops_sending_and_the_next_build_sends_only_the_missing(benchmark_base, tmp_path):
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(benchmark_base, tmp_path / "p")
    entry = {"name": "slow", "backend": "openai", "model": "m", "sample": 80, "concurrency": 2}
    requests = requests_for(project, [{**entry, "base_url": "http://unused/v1"}])
    key_of = {r.cache_key: server_key(r) for r in requests}
    assert len(key_of) == 80

    with FakeOpenAIServer(latency_s=0.4) as srv:  # 5 answers a second: the stop comes mid-run
        entry["base_url"] = srv.base_url
        args = ["build", "--select", "models/evaluation", "--vars", build_vars(eval_models=[entry])]
        proc = _spawn(project, *args)
        try:
            deadline = time.monotonic() + 240
            while len(store_keys(project) & set(key_of)) < 10:
                assert proc.poll() is None, "dbt finished before any prediction was stored"
                assert time.monotonic() < deadline, "no prediction stored in time"
                time.sleep(0.1)
            os.killpg(proc.pid, signal.SIGINT)
            signalled = time.monotonic()
            out, _ = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
        with srv._lock:
            last_request = max(t for t, *_ in srv.events)
        assert proc.returncode != 0
        assert "Traceback" not in out, out[-3000:]
        lines = [line for line in out.splitlines() if "interrupted:" in line]
        assert len(lines) == 1 and "run the same build again" in lines[0], out[-3000:]
        stored = store_keys(project) & set(key_of)
        assert 10 <= len(stored) < 80
        assert f"{len(stored)} request(s) answered" in lines[0] or "answered and stored" in lines[0]
        # nothing was sent 2 s after the signal (the server's clock: time.monotonic, as ours)
        assert last_request - signalled < 2.0

        srv.reset_counters()
        run_dbt(project, *args)
        missing = set(key_of) - stored
        assert srv.stats()["requests"] == len(missing)
        assert set(srv.attempts) == {key_of[k] for k in missing}
    assert query(project, "select count(*) from eval_predictions")[0][0] == 80
