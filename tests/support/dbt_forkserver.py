"""dbt commands forked from a process that has already imported dbt and the libraries the models use.

Each `run_dbt` of the suite is a dbt command of its own, as a user's is. Started from the `dbt` console script,
each first imports dbt-core, its DuckDB adapter and the libraries the project's Python models load (pandas,
pyarrow, sqlglot, matplotlib, scipy, statsmodels, ...): a one-model `dbt run` takes 3.9 s that way, 2.8 s
forked from here and 1.2 s once the server's heap is frozen (below).
Here that import is done once per test process, by this script run as a server; each command is then a fresh
child forked from it that sets its own working directory, environment, arguments and output files and runs
dbt's command line, then exits through the interpreter's normal shutdown (threads joined, atexit handlers run),
as the console script would. Nothing of the project is imported before the fork, so every command reads the project's code
as it is then.

Before it serves, the server also parses a scratch copy of the project twice (a full parse, then a partial one;
`_warm_up`). dbt builds the JSON schemas and the serializers of its node and config classes on their first use,
once per process, and keeps them on the classes: 1.5 s of a first full parse, 0.6 s of a first partial one. A
command forked afterwards finds them built. Most commands of the suite parse in full, since each test's `--vars`
differ, and dbt (rightly: the project renders vars into its configs) does not reuse a parse across vars. The
server also turns on the caches dbt keeps for its own test suites (`dbt_common.tests.enable_test_caching`, which
dbt's pytest fixtures call): the parsed Jinja of a text, its top-level blocks and its macro calls, keyed by the
text itself, and the `dbt_*` modules found on the path. The warm-up fills them with the project's macros and
models, so a forked command parses only what a test changed: a full parse of the project in 1.5 s instead of 2.8 s.

Last, the server freezes what it holds out of Python's cyclic collector (`gc.freeze`). A command's collections
then pass over the objects it makes itself, not over the whole heap it inherited: such a pass would read every
inherited object and write its collector header, so the kernel would copy each page of the server's heap into
the command. A one-model `dbt run` takes about 1.2 s instead of 2.5 s that way, 2.4 s instead of 4.5 s when it
parses in full (dbt's artifacts not written: tests/support/dbt_project.py).

A command whose environment changes PYTHONPATH goes through the console script instead
(tests/support/dbt_project.py), since the import path of an interpreter is fixed when it starts.

Protocol, one connection per command on a Unix socket: the client sends one JSON line (argv, cwd, env,
sys_path, stdout and stderr file paths); the server forks a waiter, which forks the command and answers the
command's pid on one line, then its wait status on another when it ends.
"""
from __future__ import annotations

import atexit
import gc
import importlib
import io
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

# imported once in the server: what every dbt command and the models' code import
PRELOAD = ("dbt.cli.main", "dbt.task.build", "dbt.task.run", "dbt.task.test", "dbt.task.list", "dbt.task.compile",
           "dbt.parser.manifest", "dbt.adapters.duckdb", "dbt.adapters.duckdb.impl", "networkx", "agate", "duckdb",
           "numpy", "pandas", "pyarrow", "pyarrow.parquet", "sqlglot", "jsonschema", "jinja2", "yaml", "openai",
           "matplotlib.figure", "matplotlib.backends.backend_agg",
           # the analyses' statistics (statsmodels' Logit brings scipy.stats and scipy.special) and BLEU: 0.7-1.2 s
           # each, imported by most builds of the suite
           "statsmodels.discrete.discrete_model", "sacrebleu.metrics")
SCRIPT = Path(__file__).resolve()


# ------------------------------------------------------------------ the server (this file run as a script)


def _serve(listener: socket.socket) -> dict:
    """Accept commands until the test process closes this server's stdin; returns, in a forked child only, the
    request that child is to run."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the waiters are reaped by the kernel
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in ready:  # end of file: the test process is gone
            sys.exit(0)
        conn, _ = listener.accept()
        request = json.loads(_Lines(conn).next())
        if os.fork() == 0:  # the waiter
            listener.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            pid = os.fork()
            if pid == 0:  # the command
                conn.close()
                return request
            conn.sendall(f"{pid}\n".encode())
            _, status = os.waitpid(pid, 0)
            conn.sendall(f"{status}\n".encode())
            os._exit(0)
        conn.close()


class _Lines:
    """Lines read from a socket, whatever its timeout did to an earlier read."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn, self.buffer = conn, b""

    def next(self) -> str:
        while b"\n" not in self.buffer:
            chunk = self.conn.recv(4096)
            if not chunk:
                return ""
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()


def _become(request: dict) -> None:
    """Turn this forked child into the command the request describes."""
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, fd)
        os.close(out)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace",
                                  line_buffering=True)
    sys.argv = list(request["argv"])
    sys.path[:] = request["sys_path"]
    importlib.invalidate_caches()  # files the tests wrote since the server imported anything


def _thread_count() -> int:
    """This process's threads, those of native libraries included (Linux), or its Python threads."""
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else threading.active_count()


def _warm_up() -> None:
    """Parse a scratch copy of the project in full, then partially, in this process: see the module's docstring.
    Parsing imports none of the project's code (dbt reads a Python model's source as text), which is checked."""
    from dbt.cli.main import dbtRunner
    from project_copy import ROOT, copy_project  # this script's neighbour (the tests' copy of the project)

    threads_before = _thread_count()
    # dbt imports every module on the path whose name starts with `dbt_` (its plugin discovery): not this folder's
    here = str(SCRIPT.parent)
    saved_path = list(sys.path)
    sys.path[:] = [p for p in sys.path if p not in (here, "")]
    try:
        with tempfile.TemporaryDirectory(prefix="dbt-forkserver-warm-up-") as scratch:
            project = copy_project(Path(scratch) / "project")
            # no static parser: it runs in a pool of native threads (dbt-extractor's), which a forked child would
            # not have, and would wait on forever
            flags = ["--project-dir", str(project), "--profiles-dir", str(project), "--log-path",
                     str(Path(scratch) / "logs"), "--quiet", "--log-level-file", "none", "--no-static-parser"]
            for extra in (["--no-partial-parse"], []):
                result = dbtRunner().invoke(["parse", *flags, *extra])
                if not result.success:
                    raise RuntimeError(f"the warm-up parse of a copy of {ROOT} failed: {result.exception}")
    finally:
        sys.path[:] = saved_path
    imported = sorted(m for m in sys.modules if m.split(".")[0] in ("generator_py", "evaluation_py"))
    started = _thread_count() - threads_before
    if imported or started:
        raise RuntimeError(f"the warm-up left project modules {imported} or {started} more threads (native ones "
                           "counted) in the server: its commands would not start as the console script does")


def main() -> None:
    for module in PRELOAD:
        importlib.import_module(module)
    from dbt_common.tests import enable_test_caching

    enable_test_caching()  # before the warm-up, which fills the caches
    _warm_up()
    gc.collect()  # what is garbage now is not frozen with the rest
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sys.argv[1])
    listener.listen(64)
    print("ready", flush=True)
    request = _serve(listener)
    _become(request)
    from dbt.cli.main import cli

    sys.exit(cli())  # click exits itself; the interpreter then shuts down as after the console script


# ------------------------------------------------------------------ the client (the test process)


class _Server:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._folder: tempfile.TemporaryDirectory | None = None
        self._base_path: list[str] = []
        atexit.register(self.stop)

    def address(self) -> str:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            return str(Path(self._folder.name) / "socket")

    def _start(self) -> None:
        self.stop()  # a server that died: its socket folder goes
        self._folder = tempfile.TemporaryDirectory(prefix="dbt-forkserver-")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        # the import path the console script starts with, less its own folder (sys.path[0]) and PYTHONPATH
        self._base_path = json.loads(subprocess.run(
            [sys.executable, "-c", "import json, sys; print(json.dumps(sys.path[1:]))"], env=env,
            capture_output=True, text=True, check=True).stdout)
        # its stdin is a pipe this process holds open: at its end of file the server exits
        self._proc = subprocess.Popen([sys.executable, str(SCRIPT), str(Path(self._folder.name) / "socket")],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                      env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
        if self._proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"{SCRIPT.name} did not start (exit {self._proc.wait()})")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.stdin.close()
            self._proc.kill()
            self._proc.wait()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None

    def sys_path(self, program: str, env: dict) -> list[str]:
        extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        return [str(Path(program).parent), *extra, *self._base_path]


_server = _Server()


def run(argv: list[str], cwd: Path, env: dict, timeout: float) -> subprocess.CompletedProcess:
    """`subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)` for the `dbt`
    console script, forked from the server instead of started afresh."""
    address = _server.address()
    with tempfile.TemporaryDirectory(prefix="dbt-run-") as tmp:
        out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
        request = {"argv": list(argv), "cwd": str(cwd), "env": dict(env), "stdout": str(out), "stderr": str(err),
                   "sys_path": _server.sys_path(argv[0], env)}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(address)
            conn.sendall((json.dumps(request) + "\n").encode())
            reply = _Lines(conn)
            pid = int(reply.next())
            conn.settimeout(timeout)
            try:
                status = reply.next()
            except TimeoutError:
                os.kill(pid, signal.SIGKILL)
                conn.settimeout(None)
                reply.next()
                raise subprocess.TimeoutExpired(argv, timeout, out.read_text(errors="replace"),
                                                err.read_text(errors="replace")) from None
        if not status:
            raise RuntimeError(f"{SCRIPT.name} closed the connection of `{' '.join(argv)}` without its exit status")
        code = os.waitstatus_to_exitcode(int(status))
        return subprocess.CompletedProcess(argv, code, out.read_text(errors="replace"), err.read_text(errors="replace"))


if __name__ == "__main__":
    main()
