"""Response cleaning, answer splitting and value normalisation for HCT-QA scoring.

The rules follow the published description of the HCT-QA release's scoring;
the details that description leaves open
were settled so that the release's published gemma-2-9b-it responses score
exactly as the release reports (see ``tests/unit/test_scoring.py``):

* Cleaning, in this order: cut the response at the first of the
  :data:`CUT_MARKERS` (case-insensitive); strip; remove leading ``answer:`` /
  ``answer=`` prefixes (case-insensitive); keep only the text before the first
  blank line; drop backticks and line breaks; strip; remove one stray comma at
  the start and one at the end; strip.
* Ground truth: split on ``{``, ``}``, ``|`` (so also ``||``); values that are
  empty after normalisation are dropped (``{a}`` has no empty values, and a
  malformed ``{0 || 5}`` gives ``0`` and ``5``).
* Response: split on ``||`` only; empty values are KEPT. A response such as
  ``950  ||`` therefore predicts two values, ``950`` and the empty string, and
  gets precision 1/2 at best. The release's numbers need this.
* Values: trimmed, lower-cased, thousands separators (a comma between a digit
  and a group of exactly three digits) removed, and trailing zeros of a
  decimal number removed (``1026.0`` -> ``1026``, ``0.5760`` -> ``0.576``).
  Spaces used as thousands separators (``9 450``) are NOT removed: the
  release's numbers need that too.

No dbt imports here.
"""
from __future__ import annotations

import re

CUT_MARKERS: tuple[str, ...] = (
    "<eos_token>",
    "#input",
    "# input",
    "# solution:",
    "#solution",
    "# explanation:",
    "#explanation",
    "note:",
    "table:",
)

_CUT_RE = re.compile("|".join(re.escape(m) for m in CUT_MARKERS), re.IGNORECASE)
_ANSWER_PREFIX_RE = re.compile(r"^(?:answer\s*[:=]\s*)+", re.IGNORECASE)
_BLANK_LINE_RE = re.compile(r"\n[ \t\r\f\v]*\n")
_DROP_TABLE = str.maketrans("", "", "`\r\n")
_GT_SPLIT_RE = re.compile(r"[{}|]")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DECIMAL_RE = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)")

LEFT_OUT_PREFIXES: tuple[str, ...] = ("no answer", "error")


def clean_response(response: str) -> str:
    """Extract the answer part of a raw model response (see the module doc for the steps)."""
    s = response
    m = _CUT_RE.search(s)
    if m is not None:
        s = s[: m.start()]
    s = s.strip()
    if s[:6].lower() == "answer":
        s = _ANSWER_PREFIX_RE.sub("", s, count=1)
    if "\n" in s:
        m = _BLANK_LINE_RE.search(s)
        if m is not None:
            s = s[: m.start()]
        s = s.translate(_DROP_TABLE)
    elif "`" in s or "\r" in s:
        s = s.translate(_DROP_TABLE)
    s = s.strip()
    if s.startswith(","):
        s = s[1:].strip()
    if s.endswith(","):
        s = s[:-1].strip()
    return s


def is_left_out(cleaned: str | None) -> bool:
    """Whether paper mode leaves this (cleaned) response out of the averages.

    Missing responses (``None``) and responses that start with ``no answer`` or
    ``error`` after lower-casing and stripping are left out. An empty string is
    NOT left out (it scores 0): the release's published numbers count empty
    responses as answered-and-wrong.
    """
    if cleaned is None:
        return True
    return cleaned.strip().lower().startswith(LEFT_OUT_PREFIXES)


def normalize_value(value: str) -> str:
    """Trim, lower-case, drop thousands separators and trailing decimal zeros."""
    v = value.strip().lower()
    if "," in v:
        v = _THOUSANDS_RE.sub("", v)
    if "." in v and _DECIMAL_RE.fullmatch(v):
        v = v.rstrip("0").rstrip(".")
        if v in ("", "-", "+"):
            v = "0"
    return v


def gt_values(gt: str) -> frozenset[str]:
    """The set of normalised ground-truth values (empty values dropped)."""
    out = {normalize_value(p) for p in _GT_SPLIT_RE.split(gt)}
    out.discard("")
    return frozenset(out)


def response_values(cleaned: str) -> frozenset[str]:
    """The set of normalised values of a cleaned response (split on ``||``; empty values kept)."""
    return frozenset(normalize_value(p) for p in cleaned.split("||"))
