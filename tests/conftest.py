"""Shared fixtures and hooks: the reference data, the session's real `dbt build`s, the test markers.

Helpers live in tests/support/ (the project copies and dbt runs: tests/support/dbt_project.py); this file
holds only fixtures and hooks, and no test imports it.

The reference data is a sample of the public HCT-QA release that the project does not ship. It is
found only through the environment variable HCTQA_REFERENCE_DIR (a folder holding
hctqa-real-sample/ and hctqa-synthetic-sample/); tests that need it ask for the `reference_dir`
fixture (or one of the two sample folders) and are skipped, naming the variable, when it is unset.

The builds are session-scoped and shared by every module that asks for them, made once a session also
under pytest-xdist (tests/support/shared_builds.py), and started at the beginning of the session in the
background (those that a collected test asks for) while the unit tests run first; a test that builds further
on one works on a `clone` of it (tests/support/dbt_project.py), never on the shared copy. Saved dbt parses are
shared between the session's project copies (`use_parse_cache`).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from support import question_fixtures, toy_tables as toy_table_data
from support.dbt_project import (CI_VARS, GEMMA_RESPONSES, HEAVY_TAGS, NO_SINGULAR, build_vars, clone, copy_project,
                                 run_dbt, treb_vars, use_parse_cache)
from support.shared_builds import build_ahead, built, session_folder, shared_build

E2E = Path(__file__).resolve().parent / "e2e"
REFERENCE_ENV = "HCTQA_REFERENCE_DIR"
REFERENCE_SAMPLES = ("hctqa-real-sample", "hctqa-synthetic-sample")


def pytest_collection_modifyitems(items):
    """Every test under tests/e2e/ is an `e2e` test, so `-m "not e2e"` leaves the builds out. The unit tests
    run first (pytest-xdist hands out the files in this order), while the shared builds are made."""
    for item in items:
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.e2e)
    items.sort(key=lambda item: E2E in item.path.parents)  # stable: each file's tests stay in their order


def _reference_dir() -> Path | str:
    """The folder HCTQA_REFERENCE_DIR names, or why it cannot be used."""
    raw = os.environ.get(REFERENCE_ENV, "").strip()
    if not raw:
        return f"{REFERENCE_ENV} is not set (a folder holding {' and '.join(s + '/' for s in REFERENCE_SAMPLES)})"
    path = Path(raw).expanduser().resolve()
    missing = [s for s in REFERENCE_SAMPLES if not (path / s).is_dir()]
    if missing:
        return f"{REFERENCE_ENV}={raw} does not hold {' and '.join(m + '/' for m in missing)}"
    return path


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """The reference sample of the HCT-QA release; the test is skipped when HCTQA_REFERENCE_DIR is unset or wrong."""
    found = _reference_dir()
    if not isinstance(found, Path):
        pytest.skip(found)
    return found


@pytest.fixture(scope="session", autouse=True)
def dbt_parse_cache(tmp_path_factory):
    """One folder of saved dbt parses for the session's project copies (every xdist worker's)."""
    use_parse_cache(session_folder(tmp_path_factory) / "dbt_parse_cache")
    yield
    use_parse_cache(None)


@pytest.fixture(scope="session")
def real_sample_dir(reference_dir) -> Path:
    return reference_dir / "hctqa-real-sample"


@pytest.fixture(scope="session")
def synthetic_sample_dir(reference_dir) -> Path:
    return reference_dir / "hctqa-synthetic-sample"


# ------------------------------------------------------------------ the session's shared builds


def _ci(project: Path) -> None:
    copy_project(project)
    # the heavy parts too (selectors.yml); its manifest.json is read by the tests of the project's layout
    proc = run_dbt(project, "build", "--selector", "full", "--vars", CI_VARS, artifacts=True)
    # what a user would see in the terminal, for the tests of the build's log
    (project / "build.stdout").write_text(proc.stdout)
    (project / "build.stderr").write_text(proc.stderr)


BENCHMARK = ("+benchmark_questions", "+benchmark_tables", "+benchmark_question_tables")


def _benchmark_base(project: Path) -> None:
    copy_project(project)
    run_dbt(project, "build", "--select", *BENCHMARK, "--exclude", "resource_type:test", "--vars", build_vars())


def _clone_benchmark_base(tmp_path_factory, project: Path) -> None:
    """`project` as a clone of the session's benchmark_base: a build on its configuration keeps its generation
    models' relations (their inputs unchanged: the model memo) and builds only what follows."""
    clone(built(tmp_path_factory, "eval_base", _benchmark_base)[0], project)


def _small(tmp_path_factory):
    def build(project: Path) -> None:
        # benchmark_base, then every other model of the light build on its configuration: the database of one
        # light build (and benchmark_base's obfuscated twins), without its data tests
        _clone_benchmark_base(tmp_path_factory, project)
        run_dbt(project, "build", "--exclude", "resource_type:test", *BENCHMARK, *HEAVY_TAGS, "--vars", build_vars())

    return build


def _treb(project: Path) -> None:
    # the generation and benchmark marts the questions reach and every data test on them (singular ones
    # included; the registry catalog, which the TReB data test reads its families from), the default baselines
    # scored by TReB skill and subtask, the consistency across perturbed views; the two-table and OLAP
    # questions' check, the tables they read, the baselines' scores by both breakdowns and their prompts. Not the
    # SQLite check of the Table III families' answers, nor the obfuscated twins (TREB's vars): the CI build makes
    # both on the same tables. Two domains (TREB_DOMAINS), every TReB family asked on them. Its run_results.json
    # is read by the TReB tests
    copy_project(project)
    run_dbt(project, "build", "--select", "+benchmark_questions", "+int_family_cross_check", "int_registry_catalog",
            "+analysis_scores_by_treb_skill", "+analysis_robustness_consistency",
            "+int_sql_text_cross_check", "+benchmark_question_tables", "+analysis_scores_by_tables_read",
            "+analysis_scores_by_olap_operation", "+eval_prompts",
            "--exclude", "tag:images", "assert_every_table_has_one_image", "--vars", treb_vars(), artifacts=True)


def _release(tmp_path_factory, real_sample_dir: Path):
    gemma = {"name": "gemma", "backend": "replay", "path": str(real_sample_dir / GEMMA_RESPONSES), "sources": ["real"]}

    def build(project: Path) -> None:
        # the release's tables and everything after them are built; the generated benchmark is benchmark_base's
        _clone_benchmark_base(tmp_path_factory, project)
        run_dbt(project, "build", *NO_SINGULAR, "--vars",
                build_vars(hctqa_release_dir=str(real_sample_dir), eval_models=[gemma]))

    return build


@pytest.fixture(scope="session", autouse=True)
def shared_builds_ahead(request, tmp_path_factory):
    """Start the shared builds the collected tests ask for, in the background: under xdist the CI build in the
    first worker and the others in the second, each once (tests/support/shared_builds.py)."""
    reference = _reference_dir()
    recipes = [("ci_build", "ci", _ci), ("benchmark_base", "eval_base", _benchmark_base),
               ("small_build", "small", _small(tmp_path_factory)), ("treb_build", "treb", _treb)]
    if isinstance(reference, Path):
        recipes.append(("release_build", "release", _release(tmp_path_factory, reference / "hctqa-real-sample")))
    wanted = {name for item in request.session.items for name in getattr(item, "fixturenames", ())}
    builds = [(folder, build) for fixture, folder, build in recipes if fixture in wanted]
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0")[2:])
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    mine = builds if workers == 1 else builds[:1] if worker == 0 else builds[1:] if worker == 1 else []
    thread = build_ahead(tmp_path_factory, mine) if mine else None
    yield
    if thread is not None:
        thread.join()


# One CI-sized full build (every domain, one replica per variant, every heavy part) shared by the end-to-end tests.
@pytest.fixture(scope="session")
def ci_build(tmp_path_factory) -> Iterator[Path]:
    yield from shared_build(tmp_path_factory, "ci", _ci)


# The CI-sized build of two domains with TReB's families and the two-table and OLAP ones (var question_suites
# [hctqa, treb, beyond]) up to the benchmark marts, the cross-checks, the default baselines' scores by TReB skill,
# tables read and OLAP operation, and every data test on them.
@pytest.fixture(scope="session")
def treb_build(tmp_path_factory) -> Iterator[Path]:
    yield from shared_build(tmp_path_factory, "treb", _treb)


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
    yield from shared_build(tmp_path_factory, "eval_base", _benchmark_base)


@pytest.fixture(scope="session")
def small_build(tmp_path_factory) -> Iterator[Path]:
    """The light build's models at small scale (accidents, one replica, the default baselines), without the data
    tests, built once a session (on a clone of `benchmark_base`, with its configuration): the hostile builds of
    test_build_guards.py and test_build_gate.py run on clones of it."""
    yield from shared_build(tmp_path_factory, "small", _small(tmp_path_factory))


@pytest.fixture(scope="session")
def release_build(tmp_path_factory, real_sample_dir) -> Iterator[Path]:
    """One full build with the release sample imported and gemma's published responses replayed, on a clone of
    `benchmark_base` (once a session)."""
    yield from shared_build(tmp_path_factory, "release", _release(tmp_path_factory, real_sample_dir))
