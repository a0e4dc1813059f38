"""Real `dbt build`s of temp copies of the project, and reading what they built.

A test copies the project (`copy_project`), builds it (`run_dbt`, or `spawn_dbt` for a build it kills),
and reads the database back (`query`). The session's shared builds (tests/conftest.py fixtures) are
never changed: a test that builds on one works on a `clone` of it.

dbt runs in the project folder with `--project-dir .` and the profile's default database path
(`hctqa.duckdb` there), so a copy's saved parse (target/partial_parse.msgpack) names no folder of its own
and stays valid in a clone. `run_dbt` also hands a fresh copy the saved parse of an earlier run with the
same `--vars` (`use_parse_cache`): see `_ParseCache` for why dbt never reuses a stale one.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from support import dbt_forkserver
from support.project_copy import ROOT, copy_project  # noqa: F401 (the tests import both from here)

# A built project's database and target/ travel with a clone; its caches, reports and exports do not.
CLONE_IGNORE = shutil.ignore_patterns("logs", "cache", "reports", "exports", "*.duckdb.wal", "__pycache__")

# The CI-sized build: every domain, one replica per variant.
CI_VARS = "{replicas: 1, cross_check: true}"
# The CI-sized build of two domains with TReB's families and the two-table and OLAP ones too (tests/conftest.py
# `treb_build`), without the obfuscated twins: the CI build makes and checks them on the same tables. A domain's
# tables and questions do not depend on which other domains are built, so its Table III questions are those of the
# CI build's two domains; these two have every TReB family (share_of_total asks no question of some domains)
TREB_DOMAINS = ["accidents", "graduations"]
TREB = {"replicas": 1, "cross_check": True, "domains": TREB_DOMAINS, "question_suites": ["hctqa", "treb", "beyond"],
        "obfuscated_variants": False}
# The small evaluation builds: one domain, one replica.
SEED = 42
# this_build: each small evaluation build's marts hold its own entries only (tests of accumulated
# results ask for eval_scope: accumulate)
SMALL = {"replicas": 1, "domains": ["accidents"], "seed": SEED, "eval_scope": "this_build"}
GEMMA_RESPONSES = "responses--gemma-2-9b-it--realHCTs.sample.jsonl"  # in the real sample folder
NO_SINGULAR = ("--exclude", "test_type:singular")


def _heavy_tags() -> tuple[str, ...]:
    """`tag:...` of each heavy part: what the default (light) selector of selectors.yml leaves out, for commands
    that select or exclude nodes of their own (dbt applies its default selector only to a command with neither).
    An `--exclude` of these leaves the heavy models out but not the data tests on them."""
    import yaml

    selectors = yaml.safe_load((ROOT / "selectors.yml").read_text())["selectors"]
    (light,) = [s for s in selectors if s.get("default")]
    return tuple(f"tag:{part['value']}" for union in light["definition"]["union"] if "exclude" in union
                 for part in union["exclude"] if part["method"] == "tag")


HEAVY_TAGS = _heavy_tags()


def dbt_executable() -> str:
    candidate = Path(sys.executable).parent / "dbt"
    return str(candidate) if candidate.exists() else (shutil.which("dbt") or "dbt")


def clone(base: Path, dest: Path) -> Path:
    """A copy of a built project (its database and target/ included, no cache or reports)."""
    shutil.copytree(base, dest, ignore=CLONE_IGNORE)
    return dest


def build_vars(**extra) -> str:
    """dbt `--vars` text (JSON is YAML) for the small scale plus `extra`."""
    return json.dumps({**SMALL, **extra})


def treb_vars(**extra) -> str:
    """dbt `--vars` text of the TReB build (two domains at CI scale, TReB's families), plus `extra`."""
    return json.dumps({**TREB, **extra})


def _dbt_command(project: Path, args, env: dict | None, artifacts: bool = False) -> tuple[list[str], dict]:
    """dbt's command line and environment for `project`; run it with the project folder as working directory.

    dbt writes target/manifest.json and target/run_results.json only when `artifacts` is asked for (a test that
    reads them): nothing of the project reads them, and writing the manifest costs a small command about a
    fifth of its time (DBT_WRITE_JSON=false, dbt's `--no-write-json`; the saved parse is written either way)."""
    full_env = dict(os.environ)
    # the database is the profile's default, hctqa.duckdb in the project folder: a path of the copy's own in the
    # profile would make every clone's saved parse invalid (dbt hashes the rendered profile)
    full_env.pop("HCTQA_DUCKDB_PATH", None)
    full_env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
    if not artifacts:
        full_env["DBT_WRITE_JSON"] = "false"
    if env:
        full_env.update(env)
    return [dbt_executable(), *args, "--project-dir", ".", "--profiles-dir", "."], full_env


class _ParseCache:
    """Saved dbt parses (target/partial_parse.msgpack) of this session, one per `--vars` text and environment.

    A fresh copy of the project would parse every file again (about 5 s of CPU a run); given the saved parse of
    another copy run with the same vars, dbt re-reads only what differs. dbt itself decides what it reuses
    (dbt-core's ManifestLoader.is_partial_parsable and parser/partial.py): it parses everything again when
    the dbt version, the CLI vars, the profile's connection (the database path among them), the env vars of
    dbt_project.yml or any dbt_project.yml differ, and otherwise compares every file's content checksum with
    the saved one and parses again each file changed, added, removed or reading an env var whose value changed.
    A seed over 1 MiB is checksummed by its path, not its content: the cache is not used then. The saved
    parse names the project by `.` (the `--project-dir`), so nothing in it points into the copy it came from,
    and a seed's rows are read from the running copy's own file at build time.
    """

    BIG_SEED = 1024 * 1024  # dbt.constants.MAXIMUM_SEED_SIZE
    SAVED = Path("target") / "partial_parse.msgpack"
    KEY = Path("target") / "partial_parse.key"  # which vars and environment the saved parse in target/ is of

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder

    @staticmethod
    def key(args, env: dict | None) -> str:
        args = list(args)
        vars_text = args[args.index("--vars") + 1] if "--vars" in args else ""
        return hashlib.sha256(json.dumps([vars_text, sorted((env or {}).items())]).encode()).hexdigest()

    def _usable(self, project: Path) -> bool:
        return self.folder is not None and not any(
            p.stat().st_size > self.BIG_SEED for p in (project / "seeds").rglob("*.csv"))

    def before(self, project: Path, key: str) -> float:
        """Give the project the saved parse of `key` unless its own is of `key`; returns the time dbt starts."""
        marker = project / self.KEY
        if self._usable(project) and not (marker.is_file() and marker.read_text() == key):
            cached = self.folder / f"{key}.msgpack"
            if cached.is_file():
                (project / "target").mkdir(exist_ok=True)
                shutil.copyfile(cached, project / self.SAVED)
                marker.write_text(key)
        return time.time()

    def after(self, project: Path, key: str, started: float) -> None:
        """Keep the parse dbt saved in this call (the first of its key in the session)."""
        saved = project / self.SAVED
        if self.folder is None or not saved.is_file() or saved.stat().st_mtime < started:
            return  # dbt saved no parse in this call (it stopped before parsing, or found nothing to parse again)
        (project / self.KEY).write_text(key)
        cached = self.folder / f"{key}.msgpack"
        if self._usable(project) and not cached.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            with saved.open("rb") as source, tempfile.NamedTemporaryFile(dir=self.folder, suffix=".tmp",
                                                                          delete=False) as partial:
                shutil.copyfileobj(source, partial)
            os.replace(partial.name, cached)  # whole or not at all, for other threads and xdist workers


_parse_cache = _ParseCache()


def use_parse_cache(folder: Path | None) -> None:
    """Share saved dbt parses between project copies through `folder` (tests/conftest.py: one per session)."""
    _parse_cache.folder = folder


def run_dbt(project: Path, *args: str, check: bool = True, env: dict | None = None, timeout: int = 1200,
            artifacts: bool = False) -> subprocess.CompletedProcess:
    argv, full_env = _dbt_command(project, args, env, artifacts)
    key = _ParseCache.key(args, env)
    started = _parse_cache.before(project, key)
    if full_env.get("PYTHONPATH") == os.environ.get("PYTHONPATH"):
        proc = dbt_forkserver.run(argv, project, full_env, timeout)
    else:  # an import path of its own is set when the interpreter starts: the console script
        proc = subprocess.run(argv, cwd=project, env=full_env, capture_output=True, text=True, timeout=timeout)
    _parse_cache.after(project, key, started)
    if check and proc.returncode != 0:
        raise AssertionError(f"dbt {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-6000:]}\n{proc.stderr[-3000:]}")
    return proc


def spawn_dbt(project: Path, *args: str) -> subprocess.Popen:
    """dbt started in a session of its own, output discarded: for tests that kill it mid-build."""
    argv, full_env = _dbt_command(project, args, None)
    _parse_cache.before(project, _ParseCache.key(args, None))
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
