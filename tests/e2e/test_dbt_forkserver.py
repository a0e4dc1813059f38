"""The suite's dbt commands forked from a server (tests/support/dbt_forkserver.py) behave as the `dbt` console
script: the same output, exit code, working directory, environment and import path, a timeout that kills the
command, and the console script itself for a command with an import path of its own."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import duckdb
import pytest

from support import dbt_forkserver
from support.dbt_project import dbt_executable, run_dbt

PROJECT = {
    "dbt_project.yml": "name: forked_dbt\nversion: '1.0'\nprofile: forked_dbt\nmodel-paths: [models]\n",
    "profiles.yml": "forked_dbt:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: probe.duckdb\n",
    "models/probe.py": (
        "import gc, os, sys\n"
        "import pandas as pd\n\n\n"
        "def model(dbt, session):\n"
        "    import probe_extra  # found on PYTHONPATH only\n\n"
        "    return pd.DataFrame({'cwd': [os.getcwd()], 'x': [os.environ.get('PROBE_X')], 'argv0': [sys.argv[0]],\n"
        "                         'path0': [sys.path[0]], 'extra': [probe_extra.WHERE],\n"
        "                         'frozen': [gc.get_freeze_count()]})\n"),
    "models/slow.py": "import time\n\n\ndef model(dbt, session):\n    time.sleep(120)\n    return session.sql('select 1')\n",
}


def _project(folder: Path) -> Path:
    for name, text in PROJECT.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def _env(extra: Path) -> dict:
    (extra / "probe_extra.py").write_text(f"WHERE = {str(extra)!r}\n")
    pythonpath = os.pathsep.join(p for p in (str(extra), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PROBE_X": "forty-two", "PYTHONPATH": pythonpath, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}


def _probe(project: Path) -> tuple:
    con = duckdb.connect(str(project / "probe.duckdb"), read_only=True)
    try:
        return con.execute("select cwd, x, argv0, path0, extra from probe").fetchone()
    finally:
        con.close()


def _frozen(project: Path) -> int:
    """How many objects the probe model's process had frozen out of the cyclic collector (gc.freeze)."""
    con = duckdb.connect(str(project / "probe.duckdb"), read_only=True)
    try:
        return con.execute("select frozen from probe").fetchone()[0]
    finally:
        con.close()


def test_a_forked_command_is_the_console_scripts_command(tmp_path):
    argv = [dbt_executable(), "run", "--select", "probe", "--project-dir", ".", "--profiles-dir", "."]
    forked, script = _project(tmp_path / "forked"), _project(tmp_path / "script")
    (tmp_path / "extra").mkdir()
    env = _env(tmp_path / "extra")
    got = dbt_forkserver.run(argv, forked, env, timeout=300)  # its import path from env's PYTHONPATH
    want = subprocess.run(argv, cwd=script, env=env, capture_output=True, text=True, timeout=300)
    assert (got.returncode, want.returncode) == (0, 0), got.stdout + got.stderr
    assert _probe(forked) == (str(forked), "forty-two", dbt_executable(), str(Path(dbt_executable()).parent),
                              str(tmp_path / "extra"))
    assert _probe(script)[1:] == _probe(forked)[1:]
    # the one difference on purpose: the server's heap is frozen, so the command's collections pass over its own
    # objects only (the console script freezes nothing)
    assert _frozen(forked) > 100_000 and _frozen(script) == 0
    # the same lines, but for times and counts of seconds
    def lines(text):
        return [line.split(" ", 1)[-1].split(" in ")[0] for line in text.splitlines()]

    assert lines(got.stdout) == lines(want.stdout) and got.stderr == want.stderr

    bad = [dbt_executable(), "run", "--no-such-flag"]
    got = dbt_forkserver.run(bad, forked, env, timeout=60)
    want = subprocess.run(bad, cwd=script, env=env, capture_output=True, text=True, timeout=60)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr) and got.returncode == 2


def test_a_command_past_its_timeout_is_killed_and_the_next_runs(tmp_path):
    project = _project(tmp_path)
    argv = [dbt_executable(), "run", "--select", "slow", "--project-dir", ".", "--profiles-dir", "."]
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        dbt_forkserver.run(argv, project, env, timeout=5)
    assert time.monotonic() - started < 60
    assert dbt_forkserver.run([dbt_executable(), "--version"], project, env, timeout=60).returncode == 0


def test_a_command_with_an_import_path_of_its_own_runs_the_console_script(tmp_path):
    project = _project(tmp_path / "p")
    (tmp_path / "extra").mkdir()
    env = _env(tmp_path / "extra")
    run_dbt(project, "run", "--select", "probe", env={"PYTHONPATH": env["PYTHONPATH"], "PROBE_X": "forty-two"})
    assert _probe(project)[1:] == ("forty-two", dbt_executable(), str(Path(dbt_executable()).parent),
                                   str(tmp_path / "extra"))
