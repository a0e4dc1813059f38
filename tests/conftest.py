"""Shared fixtures and hooks: the reference data, the session's real `dbt build`s, the test markers.

Helpers live in tests/support/ (the project copies and dbt runs: tests/support/dbt_project.py); this file
holds only fixtures and hooks, and no test imports it.

The reference data is a sample of the public HCT-QA release that the project does not ship. It is
found only through the environment variable HCTQA_REFERENCE_DIR (a folder holding
hctqa-real-sample/ and hctqa-synthetic-sample/); tests that need it ask for the `reference_dir`
fixture (or one of the two sample folders) and are skipped, naming the variable, when it is unset.

The builds are session-scoped and shared by every module that asks for them; a test that builds
further on one works on a `clone` of it (tests/support/dbt_project.py), never on the shared copy.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from support import question_fixtures, toy_tables as toy_table_data
from support.dbt_project import CI_VARS, GEMMA_RESPONSES, NO_SINGULAR, build_vars, copy_project, database_digest, run_dbt

E2E = Path(__file__).resolve().parent / "e2e"
REFERENCE_ENV = "HCTQA_REFERENCE_DIR"
REFERENCE_SAMPLES = ("hctqa-real-sample", "hctqa-synthetic-sample")


def pytest_collection_modifyitems(items):
    """Every test under tests/e2e/ is an `e2e` test, so `-m "not e2e"` leaves the builds out."""
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)


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


def _shared(project: Path) -> Iterator[Path]:
    """Yield a session's build and check at the end that no test changed its database (they build on clones)."""
    before = database_digest(project)
    yield project
    assert database_digest(project) == before, f"a test changed the shared build {project}: build on a clone of it"


@pytest.fixture(scope="session")
def real_sample_dir(reference_dir) -> Path:
    return reference_dir / "hctqa-real-sample"


@pytest.fixture(scope="session")
def synthetic_sample_dir(reference_dir) -> Path:
    return reference_dir / "hctqa-synthetic-sample"


# One CI-sized full build (every domain, one replica per variant, every heavy part) shared by the end-to-end tests.
@pytest.fixture(scope="session")
def ci_build(tmp_path_factory) -> Iterator[Path]:
    project = copy_project(tmp_path_factory.mktemp("ci") / "project")
    proc = run_dbt(project, "build", "--selector", "full", "--vars", CI_VARS)  # the heavy parts too (selectors.yml)
    # what a user would see in the terminal, for the tests of the build's log
    (project / "build.stdout").write_text(proc.stdout)
    (project / "build.stderr").write_text(proc.stderr)
    yield from _shared(project)


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


@pytest.fixture(scope="session")
def benchmark_base(tmp_path_factory) -> Iterator[Path]:
    """The small benchmark (accidents, one replica), built once a session; tests build the evaluation on clones."""
    project = copy_project(tmp_path_factory.mktemp("eval_base") / "project")
    run_dbt(project, "build", "--select", "+benchmark_questions", "+benchmark_tables", "+benchmark_question_tables",
            "--exclude", "resource_type:test",
            "--vars", build_vars())
    yield from _shared(project)


@pytest.fixture(scope="session")
def release_build(tmp_path_factory, real_sample_dir) -> Iterator[Path]:
    """One full build with the release sample imported and gemma's published responses replayed (once a session)."""
    project = copy_project(tmp_path_factory.mktemp("release") / "project")
    gemma = {"name": "gemma", "backend": "replay", "path": str(real_sample_dir / GEMMA_RESPONSES), "sources": ["real"]}
    run_dbt(project, "build", *NO_SINGULAR, "--vars",
            build_vars(hctqa_release_dir=str(real_sample_dir), eval_models=[gemma]))
    yield from _shared(project)
