"""Framing of the messages between the host and a worker: a 4-byte length, then UTF-8 JSON."""
from __future__ import annotations

import json
import os
import struct

_HEADER = struct.Struct(">I")
MAX_MESSAGE = 64 * 1024 * 1024


class ChannelClosed(EOFError):
    """The other end went away (a worker that died, a host that closed the pipe)."""


def _read_exact(fd: int, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            raise ChannelClosed(f"pipe closed after {n - left} of {n} bytes")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def send(fd: int, message: dict) -> None:
    data = json.dumps(message, ensure_ascii=False).encode("utf-8")
    if len(data) > MAX_MESSAGE:
        raise ValueError(f"sandbox message of {len(data)} bytes is over {MAX_MESSAGE}")
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def receive(fd: int) -> dict:
    (size,) = _HEADER.unpack(_read_exact(fd, _HEADER.size))
    if size > MAX_MESSAGE:
        raise ValueError(f"sandbox message of {size} bytes announced, over {MAX_MESSAGE}")
    return json.loads(_read_exact(fd, size).decode("utf-8"))
