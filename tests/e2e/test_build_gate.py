"""End-to-end: bad input is refused before any relation is replaced, the database never mixes builds
without saying so, and no secret typed into an entry is printed, logged or stored.

One small build (accidents, one replica, the default baselines: the session's `small_build`); each hostile
build runs on a clone of it and is compared relation by relation, content hashed, with what was there before.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import duckdb
import pytest

from support.dbt_project import _dbt_command, build_vars, clone, query, run_dbt

NO_TESTS = ("--exclude", "resource_type:test")
FAKE_KEY = "sk-FAKEfake1234567890abcdefXYZ"


@pytest.fixture(scope="module")
def built(small_build) -> Path:
    return small_build


def relation_hashes(project: Path) -> dict[str, str]:
    """Every relation of every schema (build_status aside) -> a hash of its rows, in a fixed order."""
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        names = con.execute("select table_schema, table_name from information_schema.tables "
                            "where table_catalog = current_database() and table_name <> 'build_status' "
                            "order by 1, 2").fetchall()
        return {f"{s}.{t}": con.execute(f'select md5(coalesce(string_agg(r::varchar, chr(10) order by r::varchar), \'\'))'
                                        f' from (select * from "{s}"."{t}") as r').fetchone()[0]
                for s, t in names}
    finally:
        con.close()


def build_status(project: Path) -> tuple[str, str | None, str]:
    return query(project, "select state, build_fingerprint, message from build_status")[0]


def marts_by_fingerprint(project: Path) -> set[str]:
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        marts = [t for (t,) in con.execute("select distinct table_name from information_schema.columns where "
                                           "table_schema = 'main' and column_name = 'build_fingerprint' "
                                           "and table_name <> 'build_status'").fetchall()]
        return {fp for m in marts for (fp,) in con.execute(f'select distinct build_fingerprint from "{m}"').fetchall()
                if fp is not None}
    finally:
        con.close()


def test_every_model_but_the_seed_views_waits_for_the_gate(built, tmp_path):
    project = clone(built, tmp_path / "p")

    def names(*select: str) -> set[str]:
        proc = run_dbt(project, "ls", "--resource-type", "model", "--output", "name", "-q", *select)
        return set(proc.stdout.split())

    before_gate = names() - names("--select", "stg_build_config+")
    seed_views = {p.stem for p in (project / "models" / "staging").glob("stg_*.sql")}
    assert before_gate and before_gate <= seed_views, before_gate - seed_views


# ---------------------------------------------------------------------------------------------- refused inputs
def _bad_replay(tmp: Path) -> dict:
    path = tmp / "answers.jsonl"
    path.write_text('{"qap_id": "a", "response": "1"}\nthis is not JSON\n')
    return {"eval_models": [{"name": "replayed", "backend": "replay", "path": str(path)}]}, f"{path}:2"


def _truncated_release(tmp: Path) -> dict:
    release = tmp / "release"
    release.mkdir()
    sample = {"ids": "t1", "table_info": {"table_formats": {"csv": ",a,b\n0,x,1\n"}}}  # half of a valid qaps JSON
    text = json.dumps([sample, sample])
    (release / "realWorld_HCT_qaps.json").write_text(text[: len(text) // 2])
    return {"hctqa_release_dir": str(release)}, "realWorld_HCT_qaps.json: not a JSON file"


BAD_INPUTS = {
    "judge-not-an-entry": lambda tmp: ({"seed": 7, "judge_model": "judgeme"}, "var judge_model must be one model entry"),
    "fractions-sum-1.5": lambda tmp: ({"finetune_split_fractions": [0.5, 0.5, 0.5]}, "the shares sum to 1.5"),
    "replay-bad-line": _bad_replay,
    "release-truncated": _truncated_release,
}


@pytest.mark.parametrize("case", BAD_INPUTS, ids=list(BAD_INPUTS))
def test_bad_input_is_refused_at_the_gate_and_every_relation_stays_as_it_was(built, tmp_path, case):
    project = clone(built, tmp_path / "p")
    before = relation_hashes(project)
    (fingerprint,) = query(project, "select build_fingerprint from staging.stg_build_config")[0]
    extra, message = BAD_INPUTS[case](tmp_path)
    proc = run_dbt(project, "build", *NO_TESTS, "--vars", build_vars(**extra), check=False)
    assert proc.returncode != 0
    assert message in proc.stdout and "stg_build_config" in proc.stdout, proc.stdout[-3000:]
    assert relation_hashes(project) == before
    state, status_fingerprint, status_message = build_status(project)
    assert (state, status_fingerprint) == ("complete", fingerprint), status_message
    assert "stopped on stg_build_config" in status_message


def test_a_refused_entry_with_a_key_leaves_the_key_nowhere(built, tmp_path):
    project = clone(built, tmp_path / "p")
    entry = {"name": "leaky", "backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
             "api_key": FAKE_KEY, "params": {"temperature": 0}}
    judge = {"backend": "openai", "model": "j", "base_url": "http://127.0.0.1:9/v1", "token": FAKE_KEY}
    for extra, named in (({"eval_models": [entry]}, "unknown key 'api_key'"), ({"judge_model": judge}, "var judge_model")):
        proc = run_dbt(project, "build", *NO_TESTS, "--vars", build_vars(**extra), check=False)
        assert proc.returncode != 0 and named in proc.stdout, proc.stdout[-3000:]
        assert FAKE_KEY not in proc.stdout + proc.stderr
    logs = [p for p in (project / "logs").rglob("*") if p.is_file()]
    assert logs and not [p for p in logs if FAKE_KEY in p.read_text(errors="replace")]
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        for s, t in con.execute("select table_schema, table_name from information_schema.tables").fetchall():
            rows = con.execute(f'select count(*) from "{s}"."{t}" as r where r::varchar like ?', [f"%{FAKE_KEY}%"])
            assert rows.fetchone()[0] == 0, f"{s}.{t}"
    finally:
        con.close()


# ---------------------------------------------------------------------------------------------- no mixed builds
def test_a_killed_build_leaves_the_database_saying_it_is_incomplete(built, tmp_path):
    project = clone(built, tmp_path / "p")
    argv, env = _dbt_command(project, ("build", *NO_TESTS, "--vars", build_vars(seed=7)), None)
    proc = subprocess.Popen(argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    seen = []
    try:
        for line in proc.stdout:  # killed once the new questions have replaced the old, with more to come
            seen.append(line)
            if "OK created" in line and "benchmark_questions" in line:
                break
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert any("benchmark_questions" in line for line in seen), "".join(seen[-40:])
    assert len(marts_by_fingerprint(project)) == 2  # the marts do mix the two builds now
    state, fingerprint, message = build_status(project)
    assert state == "building" and fingerprint is None and "has started and not ended" in message

    # The next run, whatever its selection, checks every mart and says which build each is of.
    proc = run_dbt(project, "run", "--select", "stg_build_config", "--vars", build_vars(seed=7), check=False)
    assert proc.returncode != 0 and "the database is incomplete" in proc.stdout, proc.stdout[-3000:]
    state, fingerprint, message = build_status(project)
    assert state == "incomplete" and fingerprint is None and "benchmark_questions" in message and "eval_summary" in message


def test_a_partial_build_on_the_last_full_builds_configuration_keeps_it_complete(built, tmp_path):
    project = clone(built, tmp_path / "p")
    (fingerprint,) = query(project, "select build_fingerprint from staging.stg_build_config")[0]
    run_dbt(project, "build", "--select", "eval_summary", *NO_TESTS, "--vars", build_vars())
    assert build_status(project)[:2] == ("complete", fingerprint)
