"""Real `dbt build`s of temp copies of the project, and reading what they built.

A test copies the project (`copy_project`), builds it (`run_dbt`, or `spawn_dbt` for a build it kills),
and reads the database back (`query`). The session's shared builds (tests/conftest.py fixtures) are
never changed: a test that builds on one works on a `clone` of it.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[2]
COPY_IGNORE = shutil.ignore_patterns(".venv", "target", "logs", "*.duckdb", "*.duckdb.wal", "exports", "reports",
                                     "cache", ".git", "__pycache__", ".pytest_cache", "*.egg-info", "dbt_packages")
# A built project's database and target/ travel with a clone; its caches, reports and exports do not.
CLONE_IGNORE = shutil.ignore_patterns("logs", "cache", "reports", "exports", "*.duckdb.wal", "__pycache__")

# The CI-sized build: every domain, one replica per variant.
CI_VARS = "{replicas: 1, cross_check: true}"
# The CI-sized build with TReB's families too (tests/conftest.py `treb_build`).
TREB = {"replicas": 1, "cross_check": True, "question_suites": ["hctqa", "treb"]}
# The small evaluation builds: one domain, one replica.
SEED = 42
# this_build: each small evaluation build's marts hold its own entries only (tests of accumulated
# results ask for eval_scope: accumulate)
SMALL = {"replicas": 1, "domains": ["accidents"], "seed": SEED, "eval_scope": "this_build"}
GEMMA_RESPONSES = "responses--gemma-2-9b-it--realHCTs.sample.jsonl"  # in the real sample folder
NO_SINGULAR = ("--exclude", "test_type:singular")


def dbt_executable() -> str:
    candidate = Path(sys.executable).parent / "dbt"
    return str(candidate) if candidate.exists() else (shutil.which("dbt") or "dbt")


def copy_project(dest: Path) -> Path:
    shutil.copytree(ROOT, dest, ignore=COPY_IGNORE)
    return dest


def clone(base: Path, dest: Path) -> Path:
    """A copy of a built project (its database and target/ included, no cache or reports)."""
    shutil.copytree(base, dest, ignore=CLONE_IGNORE)
    return dest


def build_vars(**extra) -> str:
    """dbt `--vars` text (JSON is YAML) for the small scale plus `extra`."""
    return json.dumps({**SMALL, **extra})


def treb_vars(**extra) -> str:
    """dbt `--vars` text of the CI-sized build with TReB's families, plus `extra`."""
    return json.dumps({**TREB, **extra})


def _dbt_command(project: Path, args, env: dict | None) -> tuple[list[str], dict]:
    full_env = dict(os.environ)
    full_env["HCTQA_DUCKDB_PATH"] = str(project / "hctqa.duckdb")
    full_env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    if env:
        full_env.update(env)
    return [dbt_executable(), *args, "--project-dir", str(project), "--profiles-dir", str(project)], full_env


def run_dbt(project: Path, *args: str, check: bool = True, env: dict | None = None, timeout: int = 1200) -> subprocess.CompletedProcess:
    argv, full_env = _dbt_command(project, args, env)
    proc = subprocess.run(argv, cwd=project, env=full_env, capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"dbt {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}")
    return proc


def spawn_dbt(project: Path, *args: str) -> subprocess.Popen:
    """dbt started in a session of its own, output discarded: for tests that kill it mid-build."""
    argv, full_env = _dbt_command(project, args, None)
    return subprocess.Popen(argv, cwd=project, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def database_digest(project: Path) -> str:
    """sha256 of the project's database file: a shared build's is taken again at the end of the session."""
    digest = hashlib.sha256()
    with open(project / "hctqa.duckdb", "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def query(project: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def requests_for(project: Path, eval_models: list[dict]):
    """The prediction requests a build with `eval_models` makes, computed from the built benchmark."""
    from evaluation_py.dbt_glue.evaluation_inputs import eval_inputs

    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        questions = con.execute("select * from benchmark_questions").df()
        tables = con.execute("select * from benchmark_tables").df()
    finally:
        con.close()
    return eval_inputs(questions, tables, repr(eval_models), str(SEED)).requests


def server_key(request) -> str:
    """What the fake server calls a request: its last user message."""
    from evaluation_py.testing.fake_openai_server import last_user_message

    return last_user_message(list(request.messages))


def store_keys(project: Path) -> set[str]:
    """The cache keys of the answers a build stored in its prediction store."""
    path = project / "cache" / "predictions.sqlite"
    if not path.exists():
        return set()
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return {k for (k,) in con.execute("select cache_key from predictions")}
    except sqlite3.OperationalError:  # the schema is not there yet
        return set()
    finally:
        con.close()
