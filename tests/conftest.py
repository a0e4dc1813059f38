"""Shared fixtures and helpers: the project root, the reference data, small real `dbt build`s in temp copies.

The reference data is a sample of the public HCT-QA release that the project does not ship. It is
found only through the environment variable HCTQA_REFERENCE_DIR (a folder holding
hctqa-real-sample/ and hctqa-synthetic-sample/); tests that need it ask for the `reference_dir`
fixture (or one of the two sample folders) and are skipped, naming the variable, when it is unset.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from support import question_fixtures, toy_tables as toy_table_data

ROOT = Path(__file__).resolve().parents[1]
REFERENCE_ENV = "HCTQA_REFERENCE_DIR"
REFERENCE_SAMPLES = ("hctqa-real-sample", "hctqa-synthetic-sample")
COPY_IGNORE = shutil.ignore_patterns(".venv", "target", "logs", "*.duckdb", "*.duckdb.wal", "exports", "reports",
                                     "cache", ".git", "__pycache__", ".pytest_cache", "*.egg-info", "dbt_packages")


def dbt_executable() -> str:
    candidate = Path(sys.executable).parent / "dbt"
    return str(candidate) if candidate.exists() else (shutil.which("dbt") or "dbt")


def copy_project(dest: Path) -> Path:
    shutil.copytree(ROOT, dest, ignore=COPY_IGNORE)
    return dest


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


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The reference sample of the HCT-QA release; the test is skipped when HCTQA_REFERENCE_DIR is unset or wrong."""
    raw = os.environ.get(REFERENCE_ENV, "").strip()
    if not raw:
        pytest.skip(f"{REFERENCE_ENV} is not set (a folder holding {' and '.join(s + '/' for s in REFERENCE_SAMPLES)})")
    path = Path(raw).expanduser().resolve()
    missing = [s for s in REFERENCE_SAMPLES if not (path / s).is_dir()]
    if missing:
        pytest.skip(f"{REFERENCE_ENV}={raw} does not hold {' and '.join(m + '/' for m in missing)}")
    return path


@pytest.fixture(scope="session")
def real_sample_dir(reference_dir) -> Path:
    return reference_dir / "hctqa-real-sample"


@pytest.fixture(scope="session")
def synthetic_sample_dir(reference_dir) -> Path:
    return reference_dir / "hctqa-synthetic-sample"


# One CI-sized build (every domain, one replica per variant) shared by the end-to-end tests.
CI_VARS = "{replicas: 1, cross_check: true}"


@pytest.fixture(scope="session")
def ci_build(tmp_path_factory) -> Path:
    project = copy_project(tmp_path_factory.mktemp("ci") / "project")
    proc = run_dbt(project, "build", "--vars", CI_VARS)
    # what a user would see in the terminal, for the tests of the build's log
    (project / "build.stdout").write_text(proc.stdout)
    (project / "build.stderr").write_text(proc.stderr)
    return project


@pytest.fixture(scope="session")
def ci_connection(ci_build):
    con = duckdb.connect(str(ci_build / "hctqa.duckdb"), read_only=True)
    yield con
    con.close()


@pytest.fixture
def ci_db(ci_connection):
    """A cursor of its own per test: a result one test leaves unfetched cannot block the next."""
    cursor = ci_connection.cursor()
    yield cursor
    cursor.close()


# ------------------------------------------------------------------ question-generation test data


@pytest.fixture(scope="session")
def seed_frames() -> dict:
    """The vocabulary and NL seed CSVs as frames of text (tests/support/toy_tables.py)."""
    return toy_table_data.load_seed_frames()


@pytest.fixture(scope="session")
def toy_tables(seed_frames):
    """Relational tables sampled from the seeds: `toy_tables.table(domain, index, seed=...)`."""
    return toy_table_data.ToyTables(seed_frames)


@pytest.fixture(scope="session")
def toy_attrs():
    """domain_attributes rows of the hand-built `toy` domain."""
    return question_fixtures.ATTRS


@pytest.fixture(scope="session")
def toy_nl_texts() -> dict:
    """NL template texts of the toy domain per template_id."""
    return question_fixtures.TEMPLATES


@pytest.fixture(scope="session")
def toy_nl_frames():
    """(nl_templates, nl_table_meanings) frames of the toy domain."""
    return question_fixtures.toy_nl_frames()


@pytest.fixture(scope="session")
def toy_nl():
    """The DomainNL of the toy domain."""
    return question_fixtures.toy_nl()


@pytest.fixture(scope="session")
def unbalanced_table():
    """Rows Country > City (Iceland without cities) and Event, columns Year."""
    return question_fixtures.unbalanced_table()


@pytest.fixture(scope="session")
def reference_tables(synthetic_sample_dir) -> list:
    """Three tables of the release's synthetic sample and the toy unbalanced one."""
    return question_fixtures.tables(synthetic_sample_dir)
# Small evaluation builds (one domain, one replica) shared by the end-to-end evaluation tests.
SEED = 42
# this_build: each small evaluation build's marts hold its own entries only (tests of accumulated
# results ask for eval_scope: accumulate)
SMALL = {"replicas": 1, "domains": ["accidents"], "seed": SEED, "eval_scope": "this_build"}
GEMMA_RESPONSES = "responses--gemma-2-9b-it--realHCTs.sample.jsonl"  # in the real sample folder
NO_SINGULAR = ("--exclude", "test_type:singular")
CLONE_IGNORE = shutil.ignore_patterns("logs", "cache", "reports", "exports", "*.duckdb.wal", "__pycache__")


def build_vars(**extra) -> str:
    """dbt `--vars` text (JSON is YAML) for the small scale plus `extra`."""
    return json.dumps({**SMALL, **extra})


def query(project: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def clone(base: Path, dest: Path) -> Path:
    """A copy of a built project (its database and target/ included, no cache or reports)."""
    shutil.copytree(base, dest, ignore=CLONE_IGNORE)
    return dest


def requests_for(project: Path, eval_models: list[dict]):
    """The prediction requests a build with `eval_models` makes, computed from the built benchmark."""
    from evaluation_py.dbt_inputs import eval_inputs

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


@pytest.fixture(scope="module")
def benchmark_base(tmp_path_factory) -> Path:
    """The small benchmark (accidents, one replica), built once; tests build the evaluation on copies."""
    project = copy_project(tmp_path_factory.mktemp("eval_base") / "project")
    run_dbt(project, "build", "--select", "+benchmark_questions", "+benchmark_tables", "--exclude", "resource_type:test",
            "--vars", build_vars())
    return project


@pytest.fixture(scope="session")
def release_build(tmp_path_factory, real_sample_dir) -> Path:
    """One full build with the release sample imported and gemma's published responses replayed (once a session)."""
    project = copy_project(tmp_path_factory.mktemp("release") / "project")
    gemma = {"name": "gemma", "backend": "replay", "path": str(real_sample_dir / GEMMA_RESPONSES), "sources": ["real"]}
    run_dbt(project, "build", *NO_SINGULAR, "--vars",
            build_vars(hctqa_release_dir=str(real_sample_dir), eval_models=[gemma]))
    return project
