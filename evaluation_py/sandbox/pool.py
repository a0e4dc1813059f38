"""Host side: warm workers kept ready, and the API to run programs and sessions in them.

A worker is one sandboxed interpreter with pandas imported (see forkserver); it runs one program at
a time, each in a fresh isolated process forked from it, so isolation does not cost a new
interpreter per program. A pool of N workers runs N programs at once.
"""
from __future__ import annotations

import os
import queue
import selectors
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, Optional

from . import bubblewrap, cgroups, protocol
from .limits import Limits
from .result import SANDBOX_NAMES, Result

START_TIMEOUT_S = 120.0
SLACK_S = 30.0  # on top of a program's own wall clock, before the host gives up on its worker


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the program): a worker that would not start or died."""


def _uid_base() -> int:
    # Each worker slot gets a uid of its own, unused elsewhere: RLIMIT_NPROC counts per uid, and the
    # rlimits reaper kills every process of the uid. The base differs between concurrent pools.
    return 200000 + (os.getpid() % 100000) * 16


class _WorkerProcess:
    def __init__(self, sandbox: str, uid: int, spawner: ThreadPoolExecutor):
        self.sandbox = sandbox
        # The program's memory and processes bounded as a whole, where this host can make cgroups.
        self.cgroups = cgroups.WorkerCgroups() if os.geteuid() == 0 else None
        dirs = self.cgroups.dirs if self.cgroups is not None and self.cgroups.available() else None
        if sandbox == "bubblewrap":
            argv, env = bubblewrap.worker_argv(bubblewrap.find_bwrap(), uid, dirs), {}
        else:
            argv, env = bubblewrap.rlimits_argv(uid, dirs)
        # Started from the pool's own long-lived thread: bwrap's --die-with-parent fires when the
        # *thread* that started it ends, so a short-lived caller thread would take the worker with it.
        if dirs:
            argv = self.cgroups.command(argv)
        self.proc = spawner.submit(subprocess.Popen, argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, env=env, cwd="/", start_new_session=True).result()
        self._stderr_tail = bytearray()
        self._stderr_thread = threading.Thread(target=self._collect_stderr, daemon=True)
        self._stderr_thread.start()

    def wait_ready(self) -> None:
        ready = self._receive(START_TIMEOUT_S)
        if not ready.get("ready"):
            raise SandboxError(f"{self.sandbox} worker did not start: {ready}")

    def _collect_stderr(self) -> None:
        for line in self.proc.stderr:
            self._stderr_tail += line
            del self._stderr_tail[:-4000]

    def request(self, message: dict, timeout_s: float) -> dict:
        try:
            protocol.send(self.proc.stdin.fileno(), message)
        except OSError as exc:
            raise SandboxError(f"{self.sandbox} worker is gone ({exc}); its stderr: {self.stderr()}") from None
        reply = self._receive(timeout_s)
        if "failure" in reply:
            raise SandboxError(f"{self.sandbox} worker failed: {reply['failure']}; its stderr: {self.stderr()}")
        return reply

    def _receive(self, timeout_s: float) -> dict:
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            if not selector.select(timeout_s):
                self.kill()
                raise SandboxError(f"{self.sandbox} worker did not answer within {timeout_s:g} s; killed it")
        try:
            return protocol.receive(fd)
        except protocol.ChannelClosed:
            self.kill()
            raise SandboxError(f"{self.sandbox} worker died; its stderr: {self.stderr()}") from None

    def stderr(self) -> str:
        self._stderr_thread.join(timeout=2)
        return bytes(self._stderr_tail).decode("utf-8", "replace").strip()[-2000:] or "(empty)"

    def alive(self) -> bool:
        return self.proc.poll() is None

    def terminate(self) -> None:
        """SIGKILL the worker and, where it has cgroups, every process in them (its program's too), from
        any thread; the thread talking to it then sees it gone, reaps it and removes its cgroups."""
        if self.cgroups is not None:
            self.cgroups.kill_all()
        if self.proc.poll() is None:
            self.proc.kill()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.cgroups is not None:
            self.cgroups.remove()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                protocol.send(self.proc.stdin.fileno(), {"op": "exit"})
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


# Folders the sandbox has its own of: a path missing there is the program's business, not the host's.
_OWN_PATHS = ("/dev/", "/proc/", "/sys/")


def _to_result(reply: dict, sandbox: str) -> Result:
    kind = reply.get("error_kind")
    message = reply.get("message", "")
    filename = reply.get("filename")
    if sandbox == "bubblewrap" and kind == "runtime" and isinstance(filename, str) and filename.startswith("/") \
            and not filename.startswith(_OWN_PATHS) \
            and message.startswith(("FileNotFoundError", "NotADirectoryError")) \
            and (os.path.lexists(filename) or os.path.dirname(filename) not in ("/", "") and os.path.isdir(os.path.dirname(filename))):
        # The path (or its folder) exists on the host but not in the sandbox: the program reached for what it hides.
        kind, message = "sandbox_violation", f"{message} (the sandbox hides this host path)"
    return Result(status="error" if kind else "ok", error_kind=kind, answer=None if kind else reply.get("answer", ""),
                  stdout=reply.get("stdout", ""), wall_s=float(reply.get("wall_s", 0.0)), sandbox=sandbox,
                  message=message)


class SandboxPool:
    """`size` warm workers of one sandbox. Use as a context manager, or call close()."""

    def __init__(self, size: int = 1, limits: Optional[Limits] = None, sandbox: str = "bubblewrap"):
        if sandbox not in SANDBOX_NAMES:
            raise ValueError(f"unknown sandbox {sandbox!r}; known: {', '.join(SANDBOX_NAMES)}")
        if not isinstance(size, int) or not 1 <= size <= 16:
            raise ValueError(f"sandbox pool size must be an integer from 1 to 16, got {size!r}")
        if sandbox == "bubblewrap":
            bubblewrap.find_bwrap()  # refuses with the install hint before anything starts
        self.sandbox, self.limits = sandbox, limits or Limits()
        self._aborted = False
        self._free: "queue.Queue[_WorkerProcess]" = queue.Queue()
        self._workers: list[_WorkerProcess] = []
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="sandbox-spawner")
        self._uids: dict[int, int] = {}  # id(worker) -> its uid, to give a replacement the same one
        base = _uid_base()
        try:
            for slot in range(size):
                self._workers.append(_WorkerProcess(sandbox, base + slot, self._spawner))
                self._uids[id(self._workers[-1])] = base + slot
            for worker in self._workers:  # they warm up (import pandas) side by side
                worker.wait_ready()
                self._free.put(worker)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> "SandboxPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for worker in self._workers:
            worker.close()
        self._workers = []
        self._spawner.shutdown(wait=False)

    def abort(self) -> None:
        """Kill every worker now, from any thread: a program running ends with its worker (its caller
        gets a SandboxError) and none is started again; close() still reaps and cleans up."""
        self._aborted = True
        for worker in list(self._workers):
            worker.terminate()

    def _checkout(self) -> _WorkerProcess:
        if not self._workers or self._aborted:
            raise SandboxError("the sandbox pool is closed")
        return self._free.get()

    def _release(self, worker: _WorkerProcess) -> None:
        """Back to the free workers; a worker that died is replaced by a fresh one first."""
        if not worker.alive() and worker in self._workers:
            worker.kill()  # reaps it and removes its cgroups
            if self._aborted:
                return
            uid = self._uids.pop(id(worker))
            fresh = _WorkerProcess(self.sandbox, uid, self._spawner)
            fresh.wait_ready()
            self._workers[self._workers.index(worker)] = fresh
            self._uids[id(fresh)] = uid
            worker = fresh
        self._free.put(worker)

    def run(self, code: str, table: Optional[dict] = None, limits: Optional[Limits] = None) -> Result:
        """Run one program in a fresh isolated process; `table` holds the html/markdown/csv texts."""
        from .program import check_inputs

        limits = limits or self.limits
        message = {"op": "program", "code": code, "table": check_inputs(table), "limits": limits.to_dict()}
        worker = self._checkout()
        try:
            reply = worker.request(message, limits.timeout_s + SLACK_S)
        finally:
            self._release(worker)
        return _to_result(reply, self.sandbox)

    def map(self, codes: Iterable[str], table: Optional[dict] = None, limits: Optional[Limits] = None) -> list[Result]:
        """Run many programs on all workers at once; results in the order of `codes`."""
        with ThreadPoolExecutor(len(self._workers) or 1) as runner:
            return list(runner.map(lambda code: self.run(code, table, limits), codes))

    def worker_cpu_s(self) -> float:
        """CPU seconds the workers and their programs' processes have used so far (for benchmarks)."""
        total = 0.0
        for _ in self._workers:
            worker = self._checkout()
            try:
                total += worker.request({"op": "usage"}, SLACK_S)["cpu_s"]
            finally:
                self._release(worker)
        return total

    def session(self, table: Optional[dict] = None, limits: Optional[Limits] = None):
        """An icot session: blocks run one after another in one process whose state persists."""
        from .session import Session

        return Session(self, table, limits or self.limits)
