"""A seccomp filter that refuses new user namespaces to a sandboxed program.

Without it an unprivileged program may `unshare(CLONE_NEWUSER)` (or clone with that flag), gain every
capability inside the new namespace and mount file systems there: contained, but kernel attack
surface the program has no use for. bubblewrap's `--disable-userns` does this only for a sandbox in
a user namespace of its own, and the worker is not in one (it gives each program a uid of its own),
so the program process installs this filter itself, after dropping to its uid and setting
no_new_privs, before any of its code runs; it holds for every process the program starts.

`unshare` and `clone` with CLONE_NEWUSER fail with EPERM; `clone3` (whose flags sit in memory a
filter cannot read) fails with ENOSYS, on which the C library falls back to `clone`; a system call
of another ABI (x32, or 32-bit on a 64-bit kernel) kills the process.
"""
from __future__ import annotations

import ctypes
import errno
import platform
import struct

from . import namespaces

CLONE_NEWUSER = 0x10000000

_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
# struct seccomp_data: nr (u32), arch (u32), instruction_pointer (u64), args[6] (u64 each, low half first)
_NR, _ARCH, _ARG0_LOW = 0, 4, 16

# machine -> (AUDIT_ARCH, unshare, clone, clone3, first number of another ABI or None)
_ARCHES = {
    "x86_64": (0xC000003E, 272, 56, 435, 0x40000000),
    "aarch64": (0xC00000B7, 97, 220, 435, None),
}


class _Filter(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program() -> bytes:
    """The BPF program for this machine (a RuntimeError where the architecture is not known here)."""
    machine = platform.machine()
    if machine not in _ARCHES:
        raise RuntimeError(f"no seccomp filter for machine {machine!r}: new user namespaces cannot be refused")
    arch, nr_unshare, nr_clone, nr_clone3, other_abi = _ARCHES[machine]
    deny = _RET_ERRNO | errno.EPERM
    ops = [_op(_LD_ABS_W, _ARCH), _op(_JEQ, arch, 1, 0), _op(_RET, _RET_KILL_PROCESS), _op(_LD_ABS_W, _NR)]
    if other_abi is not None:
        ops += [_op(_JGE, other_abi, 0, 1), _op(_RET, _RET_KILL_PROCESS)]
    ops += [
        _op(_JEQ, nr_clone3, 0, 1), _op(_RET, _RET_ERRNO | errno.ENOSYS),
        _op(_JEQ, nr_unshare, 1, 0), _op(_JEQ, nr_clone, 0, 3),
        _op(_LD_ABS_W, _ARG0_LOW), _op(_JSET, CLONE_NEWUSER, 0, 1), _op(_RET, deny),
        _op(_RET, _RET_ALLOW),
    ]
    return b"".join(ops)


def refuse_user_namespaces() -> None:
    """Install the filter on this process (and so on everything it starts); needs no_new_privs or CAP_SYS_ADMIN."""
    code = program()
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Filter(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    namespaces.prctl_pointer(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(prog))
