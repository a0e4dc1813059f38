"""Python code in a model's reply: its fenced blocks, in order."""
from __future__ import annotations

import re

# ```python ... ``` (also ```py and a bare ```); the closing fence may be missing at the reply's end.
_FENCE_RE = re.compile(r"```[ \t]*(python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)


def code_blocks(reply: str | None) -> list[str]:
    """The fenced code blocks of `reply` (python-tagged or untagged), stripped, empty ones dropped."""
    if not reply:
        return []
    return [m.group(2).strip("\n") for m in _FENCE_RE.finditer(reply) if m.group(2).strip()]


def program_of(reply: str | None) -> str:
    """pot's one program: the first fenced block, else the whole reply (prose then fails as `syntax`)."""
    blocks = code_blocks(reply)
    return blocks[0] if blocks else (reply or "")
