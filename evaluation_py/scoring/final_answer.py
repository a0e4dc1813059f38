"""The final-answer marker: how a reply says "here is my answer", written once for every reader.

`MARKER_RE` is the lenient marker ("final answer", an optional "is", an optional ':' or '='): extraction
(filter `final_answer`), the strict reading and the reasoning split of pot / tcot replies all cut at
its last occurrence. `STATED_RE` is the same marker with the colon required ("Final answer: ..."): an
icot episode ends at a reply that states it, so prose about the final answer does not end it.
"""
from __future__ import annotations

import re
from typing import Optional

_MARKER = r"\bfinal\s+answer\s*"
MARKER_RE = re.compile(_MARKER + r"(?:is\b)?\s*[:=]?", re.IGNORECASE)
STATED_RE = re.compile(_MARKER + ":", re.IGNORECASE)


def last_marker(text: str) -> Optional[re.Match]:
    """The last lenient marker in `text`, or None."""
    last = None
    for last in MARKER_RE.finditer(text):
        pass
    return last


def after_final_answer(text: str) -> str:
    """What follows the last marker, stripped; the whole text when there is none."""
    last = last_marker(text)
    return text if last is None else text[last.end():].strip()


def before_final_answer(text: str) -> Optional[str]:
    """The reasoning before the last marker, stripped (None when there is no marker or nothing before it)."""
    last = last_marker(text)
    return None if last is None else (text[:last.start()].strip() or None)


def states_final_answer(text: str) -> bool:
    """Whether a reply states its final answer ("Final answer: ...", the colon required)."""
    return bool(STATED_RE.search(text))
