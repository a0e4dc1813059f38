"""The bubblewrap command line of a worker: what the sandbox shows and what it withholds.

Visible, read-only: /usr (and the /bin, /lib* links into it), the dynamic loader cache, the Python
installation, the virtualenv's site-packages, and this package (bound on its own at a neutral path,
so the project directory around it stays out). Not visible: the project, its DuckDB file, the
predictions cache, the home directory, /etc beyond the loader cache, the host's /tmp and /proc.
Own namespaces: network (empty: only a loopback nobody listens on), PID, IPC, UTS, cgroup; the
worker's own cgroup folders are bound in read-write so it can bound each program (see cgroups). The
environment is cleared. The worker keeps five capabilities so it can give each program namespaces of
its own and drop to a uid of its own; the programs get none (see forkserver).
"""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

INSTALL_HINT = ("bubblewrap is not installed: install it with `apt-get install bubblewrap` (Debian/Ubuntu; "
                "`.ci/run` does this in CI), or opt into the weaker sandbox with `sandbox: rlimits` "
                "(limits only: no file-system or network isolation)")

PYTHON_ROOT = "/sandbox/python"
SITE_PACKAGES = "/sandbox/site-packages"
PACKAGE_PARENT = "/sandbox/lib"
PACKAGE_NAME = "hctqa_sandbox"  # the name this package is imported under inside the sandbox

# Capabilities the worker keeps (not its programs): new namespaces and mounts, switching to the
# program's uid, emptying the bounding set, and killing the program (another uid).
WORKER_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_KILL")

SANDBOX_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",  # set order, hence printed answers, the same in every worker and run (so no -I/-E)
    "PYTHONDONTWRITEBYTECODE": "1",
    "OPENBLAS_NUM_THREADS": "1",  # no BLAS threads in the worker: it forks
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "LD_LIBRARY_PATH": PYTHON_ROOT + "/lib",
}


class SandboxUnavailable(RuntimeError):
    """The chosen sandbox cannot run here; the message says what to do."""


def find_bwrap() -> str:
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(INSTALL_HINT)
    if os.geteuid() != 0:
        raise SandboxUnavailable(
            "the bubblewrap sandbox runs its workers as root (they give each program namespaces and a uid of "
            "its own); run as root, or opt into the weaker sandbox with `sandbox: rlimits`")
    return path


def package_dir() -> str:
    return str(Path(__file__).resolve().parent)


CGROUP_MOUNT = "/sandbox/cgroup"  # the worker's cgroup folders (memory, pids), bound read-write for the worker


def boot_code(package_parent: str, site_packages: str, mode: str, uid: int, cgroups: dict | None = None) -> str:
    """The `python -c` program a worker starts with: this package under PACKAGE_NAME, then its main."""
    return (
        "import sys, importlib.util\n"
        f"sys.path[:0] = [{site_packages!r}]\n"
        f"spec = importlib.util.spec_from_file_location({PACKAGE_NAME!r}, {package_parent + '/' + PACKAGE_NAME + '/__init__.py'!r},"
        f" submodule_search_locations=[{package_parent + '/' + PACKAGE_NAME!r}])\n"
        "module = importlib.util.module_from_spec(spec); sys.modules[spec.name] = module; spec.loader.exec_module(module)\n"
        f"from {PACKAGE_NAME} import forkserver\n"
        f"forkserver.main({mode!r}, {uid}, {cgroups!r})\n"
    )


def python_paths() -> tuple[str, str, str]:
    """(installation root, interpreter path relative to it, site-packages) of the running Python."""
    root = os.path.realpath(sys.base_prefix)
    executable = os.path.realpath(sys.executable)
    if not executable.startswith(root + os.sep):
        raise SandboxUnavailable(f"the interpreter {executable} is not under its installation {root}; cannot bind it into the sandbox")
    return root, os.path.relpath(executable, root), sysconfig.get_paths()["purelib"]


def _system_dirs() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in ("/etc/ld.so.cache", "/etc/localtime"):
        if os.path.exists(path):
            args += ["--ro-bind", os.path.realpath(path), path]
    return args


def worker_argv(bwrap: str, uid: int, cgroup_dirs: dict | None = None) -> list[str]:
    """`cgroup_dirs`: controller -> the worker's host folder (cgroups.WorkerCgroups), bound at CGROUP_MOUNT."""
    root, interpreter, site_packages = python_paths()
    argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv"]
    for name, value in SANDBOX_ENV.items():
        argv += ["--setenv", name, value]
    for cap in WORKER_CAPABILITIES:
        argv += ["--cap-add", cap]
    argv += _system_dirs()
    # Folders bwrap creates for mount points are 0700 (root's); the program's uid must pass through them.
    for folder in ("/sandbox", PACKAGE_PARENT):
        argv += ["--perms", "0755", "--dir", folder]
    argv += ["--ro-bind", root, PYTHON_ROOT,
             "--ro-bind", site_packages, SITE_PACKAGES,
             "--ro-bind", package_dir(), f"{PACKAGE_PARENT}/{PACKAGE_NAME}"]
    inside = {}
    for controller, path in sorted((cgroup_dirs or {}).items()):
        inside[controller] = f"{CGROUP_MOUNT}/{controller}"
        argv += ["--bind", str(path), inside[controller]]
    argv += ["--proc", "/proc", "--dev", "/dev", "--dir", "/tmp", "--remount-ro", "/", "--chdir", "/",
             "--", f"{PYTHON_ROOT}/{interpreter}", "-P", "-s", "-S", "-c",
             boot_code(PACKAGE_PARENT, SITE_PACKAGES, "bubblewrap", uid, inside or None)]
    return argv


def rlimits_argv(uid: int, cgroup_dirs: dict | None = None) -> tuple[list[str], dict]:
    """Command and environment of a worker of the weaker `rlimits` sandbox (no bubblewrap)."""
    _, _, site_packages = python_paths()
    parent = str(Path(package_dir()).parent)
    # The package is imported from its own folder under PACKAGE_NAME, as inside bubblewrap.
    cgroups = {c: str(p) for c, p in cgroup_dirs.items()} if cgroup_dirs else None
    boot = boot_code(parent, site_packages, "rlimits", uid, cgroups).replace(
        f"{parent + '/' + PACKAGE_NAME}", package_dir())
    env = {k: v for k, v in SANDBOX_ENV.items() if k != "LD_LIBRARY_PATH"}
    return [sys.executable, "-P", "-s", "-S", "-c", boot], env
