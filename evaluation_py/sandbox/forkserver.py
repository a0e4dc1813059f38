"""The worker: a warm interpreter (pandas imported) that forks one isolated process per program.

It runs inside a bubblewrap sandbox (or, under `sandbox: rlimits`, as a plain process) and talks to
the host over its stdin/stdout with the framing of `protocol`. For each program (or icot session)
it forks once; under bubblewrap the worker unshares a new PID namespace for that child (and returns
to its own with setns afterwards), so the program is PID 1 of a namespace of its own; the child then
takes new mount, IPC and UTS namespaces, a fresh tmpfs on /tmp, a fresh /proc that shows only its own
processes, and a uid of its own with no capabilities. When the program ends or is killed,
the kernel kills everything left in its PID namespace, so nothing it wrote or started reaches the
next program, and the worker itself stays clean (a program cannot see or signal it).

Under `rlimits` there are no namespaces: the program gets a fresh directory, and what it leaves
running is killed by a reaper that signals every process of the program's uid.
"""
from __future__ import annotations

import gc
import importlib
import os
import resource
import selectors
import shutil
import signal
import sys
import tempfile
import time

from . import namespaces, protocol, rlimits, seccomp
from .cgroups import ProgramCgroup
from .limits import Limits
from .program import BlockRunner

HOST_IN, HOST_OUT = 0, 1


class Worker:
    def __init__(self, mode: str, uid: int, cgroups: dict | None = None):
        self.mode, self.uid = mode, uid
        self.session: dict | None = None
        # the program's cgroup (all its processes together); None: rlimits alone bound it
        self.cgroup = ProgramCgroup(cgroups["memory"], cgroups["pids"]) if cgroups else None
        namespaces.prctl(namespaces.PR_SET_CHILD_SUBREAPER, 1)  # programs' orphans come back here to be reaped
        # The worker's own PID namespace, to return to after each program's fork (see open).
        self.pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY) if mode == "bubblewrap" else None

    # -- one session: the forked program process ---------------------------------------------
    def open(self, table: dict, limits: Limits) -> None:
        self.close()
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        tmp_dir = None
        if self.mode == "rlimits":
            tmp_dir = tempfile.mkdtemp(prefix="program-")
            if os.getuid() == 0:
                os.chown(tmp_dir, self.uid, self.uid)
        base = rlimits.address_space_now()
        oom_kills = 0
        if self.cgroup is not None:
            self.cgroup.limit(limits.memory_mb, limits.processes)
            oom_kills = self.cgroup.oom_kills()
        if self.mode == "bubblewrap":
            # One fork per program: the next child of the worker is PID 1 of a new PID namespace;
            # the worker then returns to its own, so the next program gets a new one again.
            namespaces.unshare(namespaces.CLONE_NEWPID)
        pid = -1
        try:
            pid = os.fork()
        finally:
            if self.mode == "bubblewrap" and pid != 0:
                namespaces.setns(self.pid_ns, namespaces.CLONE_NEWPID)
        if pid == 0:
            os.close(req_w), os.close(res_r), os.close(out_r)
            self._child(table, limits, base, req_r, res_w, out_w, tmp_dir)  # never returns
        os.close(req_r), os.close(res_w), os.close(out_w)
        for fd in (res_r, out_r):
            os.set_blocking(fd, False)
        self.session = {"pid": pid, "req": req_w, "res": res_r, "out": out_r, "res_buf": b"", "alive": True,
                        "limits": limits, "tmp": tmp_dir, "status": None, "oom_kills": oom_kills}
        ready = self._wait_message(limits.timeout_s + 30, limits.output_bytes)
        if ready.get("ready") is not True:
            self.close()
            raise RuntimeError(f"the program process did not start: {ready.get('message', ready)}")

    def _child(self, table, limits, base, req_r, res_w, out_w, tmp_dir) -> None:
        try:
            if self.mode == "bubblewrap":
                # PID 1 of its own PID namespace already; now its own mounts, IPC and host name. If the
                # worker dies, its sandbox's PID 1 dies and the kernel kills every process under it.
                namespaces.unshare(namespaces.CLONE_NEWNS | namespaces.CLONE_NEWIPC | namespaces.CLONE_NEWUTS)
                self._private_mounts(limits)
                if self.cgroup is not None:
                    self.cgroup.join()
                    for controller in ("memory", "pids"):  # the program has no business seeing its limits' files
                        namespaces.umount(f"/sandbox/cgroup/{controller}")
            else:
                os.setsid()
                namespaces.prctl(namespaces.PR_SET_PDEATHSIG, signal.SIGKILL)
                os.chdir(tmp_dir)
                if self.cgroup is not None:
                    self.cgroup.join()
            os.dup2(out_w, 1)
            os.dup2(out_w, 2)
            # Close every other descriptor the worker had (its host pipes, other programs' leftovers).
            low, high = sorted((req_r, res_w))
            os.closerange(3, low)
            os.closerange(low + 1, high)
            os.closerange(high + 1, 65536)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            work = "/tmp" if self.mode == "bubblewrap" else tmp_dir
            os.environ.clear()
            os.environ.update({"PATH": "/usr/bin:/bin", "HOME": work, "TMPDIR": work, "LANG": "C.UTF-8",
                               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
            rlimits.apply_limits(limits, base, bounded_as_a_whole=self.cgroup is not None)
            rlimits.become(self.uid)
            seccomp.refuse_user_namespaces()
            runner = BlockRunner(table)
            protocol.send(res_w, {"ready": True})
        except BaseException as exc:  # noqa: BLE001 - reported to the host, then the process ends
            try:
                protocol.send(res_w, {"ready": False, "message": f"{type(exc).__name__}: {exc}"})
            finally:
                os._exit(70)
        try:
            while True:
                message = protocol.receive(req_r)
                if message.get("op") != "block":
                    break
                protocol.send(res_w, runner.run(message["code"]))
        except BaseException:  # noqa: BLE001 - the host went away or the program broke its own channel
            pass
        os._exit(0)

    @staticmethod
    def _private_mounts(limits: Limits) -> None:
        namespaces.mount("none", "/", None, namespaces.MS_REC | namespaces.MS_PRIVATE)
        flags = namespaces.MS_NOSUID | namespaces.MS_NODEV
        namespaces.mount("tmpfs", "/tmp", "tmpfs", flags, f"size={limits.tmp_mb}m,mode=1777")
        if os.path.isdir("/dev/shm"):
            namespaces.mount("tmpfs", "/dev/shm", "tmpfs", flags, "size=1m,mode=1777")
        namespaces.mount("proc", "/proc", "proc", flags | namespaces.MS_NOEXEC)
        namespaces.sethostname("sandbox")
        os.chdir("/tmp")

    def run_block(self, code: str) -> dict:
        session = self.session
        if session is None or not session["alive"]:
            return {"error_kind": "runtime", "message": "the session has ended (an earlier block failed fatally)",
                    "stdout": "", "wall_s": 0.0}
        limits: Limits = session["limits"]
        start = time.monotonic()
        session["out_buf"] = bytearray()
        try:
            protocol.send(session["req"], {"op": "block", "code": code})
        except OSError:
            pass  # the program is gone; _wait_message reports how it ended
        reply = self._wait_message(limits.timeout_s, limits.output_bytes)
        if self._memory_exhausted(session):
            reply = {"error_kind": "memory", "fatal": True,
                     "message": f"the program's processes together passed the memory limit of {limits.memory_mb} MB "
                                "(the kernel killed one)"}
        reply["stdout"] = bytes(session["out_buf"][: limits.output_bytes]).decode("utf-8", "replace")
        reply["wall_s"] = round(time.monotonic() - start, 6)
        if reply.pop("fatal", False):
            self._kill(session)
        answer = reply.get("answer")
        if answer is not None and len(answer.encode("utf-8", "replace")) > limits.output_bytes:
            reply = {**reply, "answer": None, "error_kind": "output_limit",
                     "message": f"the answer is longer than {limits.output_bytes} bytes"}
        return reply

    def _wait_message(self, timeout_s: float, output_bytes: int) -> dict:
        """The program's next message, while collecting its output; kills it on the wall clock or output cap."""
        session = self.session
        deadline = time.monotonic() + timeout_s
        session.setdefault("out_buf", bytearray())
        with selectors.DefaultSelector() as selector:
            selector.register(session["res"], selectors.EVENT_READ, "res")
            selector.register(session["out"], selectors.EVENT_READ, "out")
            res_open = True
            while True:
                message = self._frame(session)
                if message is not None:
                    self._drain(session, output_bytes)
                    if len(session["out_buf"]) > output_bytes:
                        return {"error_kind": "output_limit", "fatal": True,
                                "message": f"the program printed more than {output_bytes} bytes"}
                    return message
                left = deadline - time.monotonic()
                if left <= 0:
                    return {"error_kind": "timeout", "fatal": True, "message": f"wall clock of {timeout_s:g} s passed"}
                if not res_open:
                    return self._ended(session)
                for key, _ in selector.select(left):
                    fd = session[key.data]
                    try:
                        chunk = os.read(fd, 65536)
                    except BlockingIOError:
                        continue
                    if key.data == "res":
                        if chunk:
                            session["res_buf"] += chunk
                        else:
                            res_open = False
                            selector.unregister(fd)
                    elif chunk:
                        session["out_buf"] += chunk
                        if len(session["out_buf"]) > output_bytes:
                            return {"error_kind": "output_limit", "fatal": True,
                                    "message": f"the program printed more than {output_bytes} bytes"}
                    else:
                        selector.unregister(fd)

    @staticmethod
    def _frame(session) -> dict | None:
        buf = session["res_buf"]
        if len(buf) < 4:
            return None
        size = int.from_bytes(buf[:4], "big")
        if len(buf) < 4 + size:
            return None
        session["res_buf"] = buf[4 + size:]
        import json

        try:
            return json.loads(buf[4:4 + size].decode("utf-8"))
        except ValueError:
            return {"error_kind": "runtime", "fatal": True, "message": "the program garbled the sandbox's result channel"}

    @staticmethod
    def _drain(session, output_bytes: int) -> None:
        while len(session["out_buf"]) <= output_bytes:
            try:
                chunk = os.read(session["out"], 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            session["out_buf"] += chunk

    def _memory_exhausted(self, session) -> bool:
        """Whether the kernel killed a process of the program at its cgroup's memory limit, since it started."""
        if self.cgroup is None:
            return False
        kills = self.cgroup.oom_kills()
        if kills > session["oom_kills"]:
            session["oom_kills"] = kills
            return True
        return False

    def _ended(self, session) -> dict:
        """The program process ended without answering: say why, from its wait status."""
        status = self._reap(session)
        session["alive"] = False
        if status is not None and os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig in (signal.SIGXCPU, signal.SIGKILL):
                return {"error_kind": "timeout", "message": f"killed by {signal.Signals(sig).name} (CPU limit of {session['limits'].cpu_s} s)"}
            if sig == signal.SIGXFSZ:
                return {"error_kind": "output_limit", "message": "file size limit passed"}
            return {"error_kind": "runtime", "message": f"killed by {signal.Signals(sig).name}"}
        code = os.WEXITSTATUS(status) if status is not None else None
        return {"error_kind": "runtime", "message": f"the program exited (status {code}) without finishing the block"}

    def _reap(self, session) -> int | None:
        if session["status"] is None:
            try:
                _, status = os.waitpid(session["pid"], 0)
                session["status"] = status
            except ChildProcessError:
                session["status"] = 0
        return session["status"]

    def _kill(self, session) -> None:
        if session["alive"]:
            try:
                if self.mode == "rlimits":  # the program leads a session (setsid) of its own
                    os.killpg(session["pid"], signal.SIGKILL)
                os.kill(session["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
            session["alive"] = False
        self._reap(session)

    def close(self) -> None:
        session, self.session = self.session, None
        if session is None:
            return
        self._kill(session)
        if self.mode == "rlimits":
            self._kill_uid()
        for fd in (session["req"], session["res"], session["out"]):
            os.close(fd)
        self._reap_orphans()
        if session["tmp"]:
            shutil.rmtree(session["tmp"], ignore_errors=True)

    def _kill_uid(self) -> None:
        # Without a PID namespace, what the program left running (even in a new session) is found by
        # its uid: a reaper with that uid kills every process of it.
        if os.getuid() != 0:
            return
        pid = os.fork()
        if pid == 0:
            try:
                os.setresuid(self.uid, self.uid, self.uid)
                for _ in range(3):
                    os.kill(-1, signal.SIGKILL)
            except OSError:
                pass
            os._exit(0)
        os.waitpid(pid, 0)

    @staticmethod
    def _reap_orphans() -> None:
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return


def main(mode: str, uid: int, cgroups: dict | None = None) -> None:
    """Serve the host until it closes the pipe or sends `exit`."""
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    importlib.import_module("pandas")  # imported once here, so each forked program starts with it loaded

    from .program import namespace_for

    namespace_for({"csv": "a,b\n1,2\n"})  # warms pandas' CSV reader too
    gc.freeze()  # the warm objects leave the collector's view: a program's collections do not touch (copy) their pages
    worker = Worker(mode, uid, cgroups)
    protocol.send(HOST_OUT, {"ready": True, "pid": os.getpid()})
    while True:
        try:
            message = protocol.receive(HOST_IN)
        except protocol.ChannelClosed:
            break
        op = message.get("op")
        try:
            if op == "exit":
                break
            if op == "program":
                start = time.monotonic()
                worker.open(message.get("table") or {}, Limits.from_dict(message["limits"]))
                reply = worker.run_block(message["code"])
                worker.close()
                reply["wall_s"] = round(time.monotonic() - start, 6)
            elif op == "open":
                worker.open(message.get("table") or {}, Limits.from_dict(message["limits"]))
                reply = {"ready": True}
            elif op == "block":
                reply = worker.run_block(message["code"])
            elif op == "usage":  # CPU seconds of this worker and the programs it reaped (benchmarks)
                own, reaped = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
                reply = {"cpu_s": own.ru_utime + own.ru_stime + reaped.ru_utime + reaped.ru_stime}
            elif op == "close":
                worker.close()
                reply = {"closed": True}
            else:
                reply = {"failure": f"unknown op {op!r}"}
        except Exception as exc:  # noqa: BLE001 - a sandbox failure, not a program's: the host raises it
            worker.close()
            reply = {"failure": f"{type(exc).__name__}: {exc}"}
        protocol.send(HOST_OUT, reply)
    worker.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
