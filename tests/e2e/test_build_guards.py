"""End-to-end: a green build means its numbers come from the configuration given, on the benchmark built.

Bad vars stop the build before anything built is replaced; marts of another build fail the run (the
check at its end) and mark the database incomplete;
a replay model pointed at another file scores that file; a damaged or edited cache is never read as
answers; failed requests warn, and fail the build above var max_failed_request_share; two databases in
one folder keep their own exports; the models that execute the answers run on one DuckDB thread past a size.
"""
from __future__ import annotations

import json
import socket
import sqlite3
from pathlib import Path

import pytest

from support.dbt_project import HEAVY_TAGS, build_vars, clone, copy_project, query, requests_for, run_dbt, server_key

FULL_NO_TESTS = ("--exclude", "resource_type:test")


@pytest.fixture(scope="module")
def built(small_build) -> Path:
    """The light build's models at small scale (accidents, one replica, the default baselines), without tests
    (the session's `small_build`, shared with test_build_gate.py: every test builds on a clone of it)."""
    return small_build


def snapshot(project: Path) -> dict:
    return {m: query(project, f"select count(*), min(build_fingerprint), max(build_fingerprint) from {m}")[0]
            for m in ("staging.stg_build_config", "benchmark_tables", "benchmark_questions", "benchmark_relational_cells",
                      "eval_summary", "analysis_scores_by_template")}


# ---------------------------------------------------------------------------------------------- bad vars
# One case: the build shows the message and replaces nothing. Every var's and eval_models entry's own
# checks are unit tests (tests/unit/test_build_config.py, tests/unit/test_model_specs.py).
def test_bad_var_fails_naming_it_and_keeps_what_was_built(built, tmp_path):
    project = clone(built, tmp_path / "p")
    before = snapshot(project)
    bad_entry = {"name": "m", "backend": "openai", "model": "x", "base_url": "http://127.0.0.1:9/v1",
                 "params": {"temperature": "hot"}}
    proc = run_dbt(project, "build", *FULL_NO_TESTS, "--vars", build_vars(eval_models=[bad_entry]), check=False)
    assert proc.returncode != 0
    assert "eval_models entry 1" in proc.stdout, proc.stdout[-3000:]
    assert "params.temperature must be a number >= 0, got 'hot'" in proc.stdout, proc.stdout[-3000:]
    assert "stg_build_config" in proc.stdout
    assert snapshot(project) == before


def test_marts_of_another_build_fail_the_run_and_mark_the_database_incomplete(built, tmp_path):
    project = clone(built, tmp_path / "p")
    run_dbt(project, "test", "--select", "assert_no_failed_requests", "--vars", build_vars())
    assert query(project, "select state from build_status") == [("complete",)]
    # A partial build with another seed: its tables sit beside the old questions, and the run says so.
    proc = run_dbt(project, "run", "--select", "+benchmark_tables", "--vars", build_vars(seed=7), check=False)
    assert proc.returncode != 0 and "the database is incomplete" in proc.stdout, proc.stdout[-3000:]
    (now,) = query(project, "select build_fingerprint from staging.stg_build_config")[0]
    assert query(project, "select distinct build_fingerprint from benchmark_tables") == [(now,)]
    assert query(project, "select distinct build_fingerprint from benchmark_questions") != [(now,)]
    ((state, message),) = query(project, "select state, message from build_status")
    assert state == "incomplete" and "benchmark_questions" in message
    assert f"build {now}: benchmark_tables, staging.stg_build_config" in message


# ---------------------------------------------------------------------------------------------- replay and cache
def write_replay(path: Path, rows: list[tuple[str, str, str]]) -> str:
    path.write_text("".join(json.dumps({"qap_id": q, "response": r, "gt": gt}) + "\n" for q, r, gt in rows))
    return str(path)


ASKED = 60  # of the small benchmark's original questions (about 1,400)


def test_replay_follows_its_file_and_the_cache_is_never_read_unchecked(built, tmp_path):
    from evaluation_py.backends.oracle_backend import gt_to_answer

    project = clone(built, tmp_path / "p")
    # an entry answers the original questions (variants: [original], the default)
    questions = query(project, "select question_id, answer_gt from benchmark_questions where variant = 'original' "
                               "order by question_id")
    right = write_replay(tmp_path / "right.jsonl", [(q, gt_to_answer(gt), gt) for q, gt in questions])
    wrong = write_replay(tmp_path / "wrong.jsonl", [(q, "nothing at all", gt) for q, gt in questions])

    def build(path: str, check: bool = True):
        # a sample of the questions is asked; every line of the file is still checked against the benchmark
        entry = {"name": "replayed", "backend": "replay", "path": path, "sample": ASKED}
        return run_dbt(project, "build", "--select", "models/evaluation", "--vars",
                       build_vars(eval_models=[entry]), check=check)

    def f1() -> float:
        return query(project, """select value from eval_summary where model_name = 'replayed' and level = 'overall'
                                 and scoring_mode = 'strict' and metric = 'f1'""")[0][0]

    build(right)
    assert f1() == 1.0
    build(wrong)  # same model name, another file: its answers, not the cached ones
    assert f1() == 0.0
    assert query(project, "select count(*), count(distinct response) from eval_predictions")[0] == (ASKED, 1)

    # Responses to another benchmark: the gt of a line disagrees with this benchmark's.
    other = [(q, "x", gt) for q, gt in questions]
    other[3] = (other[3][0], "x", "{something else}")
    proc = build(write_replay(tmp_path / "other.jsonl", other), check=False)
    assert proc.returncode != 0
    assert "1 line(s) disagree with the benchmark" in proc.stdout and f"line 4 id {other[3][0]!r}" in proc.stdout

    # An answer edited inside the cache is dropped with a warning and asked again.
    cache = project / "cache" / "predictions.sqlite"
    con = sqlite3.connect(cache)
    con.execute("update predictions set response = 'tampered' where rowid in"
                " (select rowid from predictions where response = 'nothing at all' limit 2)")
    con.commit()
    con.close()
    proc = build(wrong)
    assert "fail their checksum" in proc.stdout + proc.stderr
    assert query(project, "select count(*) from eval_predictions where response = 'tampered'")[0][0] == 0
    assert f1() == 0.0

    # A damaged cache file: the error names it and the way out.
    cache.write_bytes(cache.read_bytes()[:4096])
    for extra in project.glob("cache/predictions.sqlite-*"):
        extra.unlink()
    proc = build(wrong, check=False)
    assert proc.returncode != 0
    assert str(cache) in proc.stdout and "delete it" in proc.stdout and "eval_cache_dir" in proc.stdout, proc.stdout[-3000:]


# ---------------------------------------------------------------------------------------------- failures
FAST_FAIL = {"max_retries": 1, "backoff_base_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 5}


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"  # nothing listens there: every connection is refused


def test_refused_connections_warn_and_fail_the_build(built, tmp_path):
    project = clone(built, tmp_path / "p")
    entry = {"name": "down", "backend": "openai", "model": "m", "sample": 12, "base_url": closed_port_url(), **FAST_FAIL}
    proc = run_dbt(project, "build", "--select", "models/evaluation", "--vars", build_vars(eval_models=[entry]),
                   check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "12 of 12 requests of this build have no answer" in out and "model 'down' 12 of 12 (connection 12)" in out
    assert "sent 12, cached 0, failed 12" in out  # the run's end line of the model
    assert "WARN" in proc.stdout and "assert_no_failed_requests" in proc.stdout
    assert "FAIL" in proc.stdout and "assert_failed_request_share_within_limit" in proc.stdout


@pytest.mark.parametrize("limit, fails", [(None, True), (0.5, False)], ids=["default-5pct", "limit-50pct"])
def test_a_share_of_failed_requests_above_the_limit_fails(built, tmp_path, limit, fails):
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(built, tmp_path / "p")
    entry = {"name": "flaky", "backend": "openai", "model": "m", "sample": 20, **FAST_FAIL}
    keys = [server_key(r) for r in requests_for(project, [{**entry, "base_url": "http://unused/v1"}])]
    script = {k: ["500"] * 10 for k in keys[:7]}  # 35 % fail after their retries
    with FakeOpenAIServer(script=script) as srv:
        extra = {} if limit is None else {"max_failed_request_share": limit}
        proc = run_dbt(project, "build", "--select", "models/evaluation", "--vars",
                       build_vars(eval_models=[{**entry, "base_url": srv.base_url}], **extra), check=False)
    assert "model 'flaky' 7 of 20 (http_500 7)" in proc.stdout + proc.stderr
    assert "assert_no_failed_requests" in proc.stdout and "WARN" in proc.stdout
    assert (proc.returncode != 0) is fails, proc.stdout[-3000:]


# ---------------------------------------------------------------------------------------------- outputs
def test_two_databases_in_one_folder_keep_their_own_exports(tmp_path):
    project = copy_project(tmp_path / "p")
    for name, seed in (("a", 1), ("b", 2)):  # two builds from nothing, of the smallest domain
        run_dbt(project, "build", "--select", "+benchmark_exports", "--exclude", "resource_type:test", *HEAVY_TAGS,
                "--vars", build_vars(seed=seed, domains=["students"]),
                env={"HCTQA_DUCKDB_PATH": str(project / f"{name}.duckdb")})
    a, b = (project / "a_exports" / "hctqa_qaps.json"), (project / "b_exports" / "hctqa_qaps.json")
    assert a.is_file() and b.is_file() and a.read_bytes() != b.read_bytes()
    assert not (project / "exports").exists()


# ------------------------------------------------------------------------------- answers within memory
def test_answer_models_run_on_one_duckdb_thread_past_their_cells_limit(built, tmp_path):
    """Over many questions the set-based answers need more than DuckDB's memory limit on two threads: each model
    running them decides by its relational cells, before it runs, and gives the threads back after."""
    project = clone(built, tmp_path / "p")
    cells = query(project, "select count(*) from intermediate.int_relational_cells")[0][0]
    assert cells > 0
    for rows, statement in ((cells - 1, "set threads = 1"), (cells, "select 1")):
        inline = f"{{{{ one_duckdb_thread_past(ref('int_relational_cells'), {rows}) }}}}"
        out = run_dbt(project, "compile", "--inline", inline, "--vars", build_vars(), artifacts=True).stdout
        assert out.rstrip().endswith(statement), (rows, out[-300:])
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    # a model the build's vars turn off (the counterfactual sets) is under `disabled`, with its config
    nodes = [*manifest["nodes"].values(), *(n for ns in manifest["disabled"].values() for n in ns)]
    answers = {n["name"]: n["config"] for n in nodes
               if n["resource_type"] == "model" and "question_answers(" in n["raw_code"]}
    assert set(answers) == {"int_question_answers", "int_obfuscated_question_answers",
                            "int_counterfactual_question_answers"}
    for name, config in answers.items():
        assert [h["sql"] for h in config["post-hook"]] == ["reset threads"], name
        (hook,) = [h["sql"] for h in config["pre-hook"]]
        assert "one_duckdb_thread_past(ref(" in hook and "5000000" in hook, name
