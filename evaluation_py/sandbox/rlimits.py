"""Kernel resource limits and the switch to an unprivileged uid, for both sandboxes.

Under `sandbox: rlimits` (the documented weaker fallback where bubblewrap is missing) this is all the
isolation there is: the limits below, a uid of its own, a fresh working directory and a clean
environment, but the host's file system and network stay reachable as far as Unix permissions of
that uid allow.
"""
from __future__ import annotations

import os
import resource

from . import namespaces
from .limits import Limits

_MB = 1024 * 1024


def address_space_now() -> int:
    """Bytes of address space this process holds (the warm interpreter with pandas)."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def apply_limits(limits: Limits, base_address_space: int, bounded_as_a_whole: bool) -> None:
    """`bounded_as_a_whole`: a cgroup holds the program's total to `memory_mb` (cgroups.ProgramCgroup), so
    each process may take all of it; without one, each of the `processes` gets an equal share, so
    together they stay within `memory_mb` too."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    share = limits.memory_mb * _MB if bounded_as_a_whole else limits.memory_mb * _MB // limits.processes
    memory = base_address_space + share
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    size = limits.file_size_mb * _MB
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def become(uid: int) -> None:
    """Drop to `uid` (a uid of this worker alone) with no groups, no capabilities, no way back.

    RLIMIT_NPROC counts processes per uid and is not enforced for root, so the program must not be root.
    """
    if os.getuid() == 0:
        namespaces.drop_bounding_capabilities()
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    namespaces.prctl(namespaces.PR_SET_NO_NEW_PRIVS, 1)
