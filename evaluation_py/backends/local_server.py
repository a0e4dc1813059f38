"""A local inference server as a child process that never outlives its parent.

`LocalServer` starts a command in its own process group on a free loopback port, waits until an HTTP
path answers, and stops the whole group on `stop()`, at interpreter exit (atexit) and, on Linux, when
the parent dies without cleaning up (SIGKILL, a crash): the child asks the kernel for SIGKILL on its
parent's death (PR_SET_PDEATHSIG) before it executes the server.

The kernel sends that signal when the *thread* that forked the child ends, so start servers from the
thread that also stops them (the caller's thread, not a short-lived worker).
"""
from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Optional, Sequence

_PR_SET_PDEATHSIG = 1
_LIVE: "set[LocalServer]" = set()
_LIVE_LOCK = threading.Lock()


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


# Loaded here, not in the child: dlopen between fork and exec can deadlock in a threaded parent.
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def _die_with_parent(parent_pid: int) -> None:
    """Runs in the child between fork and exec."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)


class LocalServer:
    """One server process. `argv` may contain `{port}`, replaced by the chosen port."""

    def __init__(self, argv: Sequence[str], log_path: str | Path, host: str = "127.0.0.1",
                 ready_path: str = "/v1/models", startup_timeout_s: float = 300.0, name: str = "server"):
        self.host = host
        self.port = free_port(host)
        self.argv = [a.replace("{port}", str(self.port)) for a in argv]
        self.log_path = Path(log_path)
        self.ready_path = ready_path
        self.startup_timeout_s = startup_timeout_s
        self.name = name
        self.proc: Optional[subprocess.Popen] = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> "LocalServer":
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        try:
            parent = os.getpid()
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         process_group=0, preexec_fn=lambda: _die_with_parent(parent))
            # First line of this start in the log: who it is, so tests and users can find the process.
            log.write(f"# {self.name} pid={self.proc.pid} port={self.port} started={time.time():.3f}\n".encode())
            log.flush()
        finally:
            log.close()
        with _LIVE_LOCK:
            _LIVE.add(self)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            code = self.proc.poll()
            if code is not None:
                raise RuntimeError(f"{self.name} exited with status {code} while starting; its output is in "
                                   f"{self.log_path}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + self.ready_path, timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name} did not answer {self.url + self.ready_path} within "
                                   f"{self.startup_timeout_s:.0f} s; its output is in {self.log_path}")
            time.sleep(0.2)

    def log_tail(self, n_bytes: int = 3000) -> str:
        try:
            data = self.log_path.read_bytes()
        except OSError:
            return ""
        return data[-n_bytes:].decode("utf-8", "replace")

    def stop(self, grace_s: float = 5.0) -> None:
        """SIGTERM to the process group, SIGKILL after `grace_s`; safe to call twice."""
        proc = self.proc
        with _LIVE_LOCK:
            _LIVE.discard(self)
        if proc is None:
            return
        self.proc = None
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=grace_s)
            except ProcessLookupError:
                pass
        # Anything the server itself started in its group goes too.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def __enter__(self) -> "LocalServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@atexit.register
def _stop_all() -> None:
    with _LIVE_LOCK:
        servers = list(_LIVE)
    for s in servers:
        s.stop(grace_s=2.0)
