"""Hostile programs in the bubblewrap sandbox: each is contained, recorded with its error kind, and
leaves nothing running. Each runs through the CLI inside an outer guard of the test's own
(tests/support/sandbox_guard.py: pids and memory cgroups, frozen and killed afterwards)."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from support.sandbox_guard import OuterGuard

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.timeout(300), pytest.mark.sandbox]  # a sandbox that hangs fails its test instead of the run


@pytest.fixture
def guarded(tmp_path):
    """Run a program through `python -m evaluation_py.sandbox run` inside a fresh OuterGuard."""
    guards = []

    def run(code: str, *args: str, env: dict | None = None, sandbox: str = "bubblewrap") -> dict:
        program = tmp_path / f"program_{len(guards)}.py"
        program.write_text(code)
        guard = OuterGuard()
        guards.append(guard)
        proc = subprocess.run([sys.executable, "-m", "evaluation_py.sandbox", "run", str(program), "--sandbox", sandbox, *args],
                              cwd=ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=120,
                              preexec_fn=guard.enter)
        guard.settle()
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout)
        assert guard.leftover == [], f"processes left running after the sandbox returned: {guard.leftover}"
        return result

    run.guards = guards
    yield run
    for guard in guards:
        guard.cleanup()
    assert all(not guard.dirs for guard in guards), "the outer guard's cgroups were not removed"


def test_the_outer_guard_is_a_cgroup_here():
    guard = OuterGuard()
    try:
        assert guard.kind != "prlimit", "cgroups are not writable here: the guard fell back to prlimit"
        assert guard.v2 is not None and (guard.v2 / "cgroup.kill").exists()
    finally:
        guard.cleanup()
    assert not guard.dirs


def test_infinite_loop_is_a_timeout(guarded):
    result = guarded("while True:\n    pass\n", "--timeout", "1.5")
    assert result["status"] == "error" and result["error_kind"] == "timeout"
    assert result["sandbox"] == "bubblewrap"
    assert result["wall_s"] < 10


def test_fork_bomb_hits_the_process_limit(guarded):
    result = guarded("import os\nwhile True:\n    os.fork()\n", "--timeout", "5")
    assert result["error_kind"] == "sandbox_violation", result
    assert "process limit" in result["message"]


def test_ten_gigabyte_allocation_is_a_memory_error(guarded):
    result = guarded("block = bytearray(10 * 1024 ** 3)\nanswer = len(block)\n", "--memory-mb", "512")
    assert result["error_kind"] == "memory", result
    assert result["answer"] is None


def _peak_memory_mb(guard: OuterGuard) -> float:
    """The most memory the guarded processes held together (the outer guard's own memory cgroup)."""
    for path in guard.dirs:
        for name in ("memory.max_usage_in_bytes", "memory.peak"):
            if (path / name).exists():
                return int((path / name).read_text()) / 2 ** 20
    pytest.fail(f"the outer guard ({guard.kind}) has no memory cgroup to measure with")


FORKING_HOG = """
import os
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        block = bytearray(b"\\x01") * (400 * 1024 * 1024)  # 400 MB, every page written
        os._exit(0)
    children.append(pid)
answer = str([os.waitpid(pid, 0)[1] for pid in children])
"""


@pytest.mark.parametrize("sandbox", ["bubblewrap", "rlimits"])
def test_a_program_forking_memory_hogs_stays_within_its_memory_as_a_whole(guarded, sandbox):
    quiet = guarded("answer = 'idle'\n", "--memory-mb", "512", sandbox=sandbox)
    assert quiet["status"] == "ok"
    baseline = _peak_memory_mb(guarded.guards[-1])  # the CLI, the worker and an idle program
    result = guarded(FORKING_HOG, "--memory-mb", "512", "--timeout", "60", sandbox=sandbox)
    peak = _peak_memory_mb(guarded.guards[-1])
    # three children of 400 MB each fit the per-process limit; together they would take 1,200 MB
    assert peak <= baseline + 512 + 64, (peak, baseline, result)
    assert result["error_kind"] == "memory" and "together" in result["message"], result


UNSHARE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
rc = libc.unshare(0x10000000 | 0x00020000)  # CLONE_NEWUSER | CLONE_NEWNS
err = ctypes.get_errno()
mounted = libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, None) if rc == 0 else None
answer = f"{rc} {os.strerror(err) if rc else ''} {mounted}"
"""


@pytest.mark.parametrize("sandbox", ["bubblewrap", "rlimits"])
def test_a_program_cannot_make_a_user_namespace(guarded, sandbox):
    result = guarded(UNSHARE, sandbox=sandbox)
    assert result["status"] == "ok", result
    assert result["answer"] == "-1 Operation not permitted None", result
    threads = guarded("import threading\nt = threading.Thread(target=print, args=('thread',))\nt.start(); t.join()\n"
                      "import subprocess\nanswer = subprocess.run(['/bin/echo', 'child'], capture_output=True,"
                      " text=True).stdout.strip()\n", sandbox=sandbox)
    assert threads["answer"] == "child" and "thread" in threads["stdout"], threads  # clone3 refused, clone works


def test_no_connection_reaches_a_server_on_the_host_loopback(guarded):
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(8)
    port = server.getsockname()[1]
    accepted = []

    def accept():
        try:
            accepted.append(server.accept())
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    try:
        result = guarded(f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
                         "s.sendall(b'leak')\nanswer = 'connected'\n")
    finally:
        server.close()
        thread.join()
    assert result["error_kind"] == "sandbox_violation", result
    assert accepted == []


def test_the_duckdb_file_and_predictions_cache_are_out_of_reach(guarded, tmp_path):
    database = tmp_path / "hctqa.duckdb"
    with duckdb.connect(str(database)) as con:
        con.execute("create table secret as select 'ground-truth-123' as gt")
    cache = tmp_path / "cache" / "predictions.jsonl"
    cache.parent.mkdir()
    cache.write_text('{"prediction": "cached-answer-456"}\n')
    for path in (database, cache, ROOT / "pyproject.toml", Path.home() / ".bashrc"):
        if not path.exists():
            continue
        result = guarded(f"answer = open({str(path)!r}, 'rb').read()[:200]\n")
        assert result["error_kind"] == "sandbox_violation", (path, result)
        assert "hides this host path" in result["message"]
        assert "ground-truth-123" not in json.dumps(result) and "cached-answer-456" not in json.dumps(result)


def test_writing_outside_the_temporary_directory_fails(guarded, tmp_path):
    target = tmp_path / "written_by_program.txt"
    result = guarded(f"open({str(target)!r}, 'w').write('x')\n")
    assert result["error_kind"] == "sandbox_violation", result
    assert not target.exists()
    result = guarded("open('/usr/written_by_program', 'w').write('x')\n")
    assert result["error_kind"] == "sandbox_violation", result
    assert not Path("/usr/written_by_program").exists()
    # Its own tmp dir is writable.
    result = guarded("open('/tmp/mine', 'w').write('x')\nanswer = open('/tmp/mine').read()\n")
    assert result["status"] == "ok" and result["answer"] == "x"


def test_an_api_key_of_the_parent_environment_is_not_visible(guarded):
    secret = "sk-test-sandbox-0123456789"
    result = guarded("import os\nprint(sorted(os.environ))\nanswer = os.environ['OPENAI_API_KEY']\n",
                     env={"OPENAI_API_KEY": secret, "HCTQA_TEST_SECRET": secret})
    assert result["error_kind"] == "runtime" and result["message"].startswith("KeyError"), result
    assert secret not in json.dumps(result)
    assert "HCTQA_TEST_SECRET" not in result["stdout"]


MARKER = "987.654321"


def _marker_processes() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if MARKER in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def test_a_detached_child_is_killed_with_the_program(guarded):
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            f"        os.execv('/bin/sleep', ['sleep', '{MARKER}'])\n"
            "    os._exit(0)\n"
            "time.sleep(60)\n")
    result = guarded(code, "--timeout", "2")
    assert result["error_kind"] == "timeout", result
    assert _marker_processes() == []


def test_a_detached_child_outliving_a_finished_program_is_killed(guarded):
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            f"    os.execv('/bin/sleep', ['sleep', '{MARKER}'])\n"
            "time.sleep(0.3)\nanswer = 'done'\n")
    result = guarded(code)
    assert result["status"] == "ok" and result["answer"] == "done"
    assert _marker_processes() == []


@pytest.mark.parametrize("code, kind", [
    ("while True:\n    pass\n", "timeout"),
    ("block = bytearray(10 * 1024 ** 3)\n", "memory"),
    ("import os\nwhile True:\n    os.fork()\n", "sandbox_violation"),
])
def test_rlimits_fallback_contains_loops_allocations_and_fork_bombs(guarded, code, kind):
    result = guarded(code, "--timeout", "1.5", "--memory-mb", "512", sandbox="rlimits")
    assert result["error_kind"] == kind and result["sandbox"] == "rlimits"


def test_rlimits_fallback_kills_a_detached_child(guarded):
    code = ("import os, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            f"    os.execv('/bin/sleep', ['sleep', '{MARKER}'])\n"
            "time.sleep(60)\n")
    result = guarded(code, "--timeout", "1.5", sandbox="rlimits")
    assert result["error_kind"] == "timeout"
    assert _marker_processes() == []
