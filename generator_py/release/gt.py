"""The HCT-QA `gt` answer string: written once, read two ways.

Written (:func:`format_gt`): one `{...}` per answer row, its values joined by ` | `, the rows
joined by ` || ` (`{a | 1} || {b | 2.5}`); numbers in the canonical form of
`generator_py.core.formatting`, NULLs inside a row left out. The SQL side writes the same string from
the answer rows (`macros/release_gt.sql`).

Read as rows (:func:`gt_rows`): the structure, for `answer_rows` of an imported release question;
tolerant of the release's stray brackets.

Read as values (:func:`gt_value_list`, :func:`gt_values`): the release's own scoring reading, step
for step (it gives the published numbers): remove every comma between two digits; lower-case,
strip; delete every `{` and `}`; replace `||` by `|`; split on `|`; strip each value, then remove
digit commas and trailing zeros (:func:`drop_trailing_zeros`) per value. Empty values are kept, and
nothing else splits: `{30.41 | 32.22} {69.59 | 67.78}` gives `30.41`, `32.22 69.59` and `67.78`.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Sequence

from generator_py.core.formatting import format_value

_DIGIT_COMMA_RE = re.compile(r"(?<=\d),(?=\d)")
# A decimal number's trailing zeros, when a word boundary follows: `5.0` -> `5`, `71.40` -> `71.4`.
_TRAILING_ZEROS_RE = re.compile(r"(\d)(?:\.0+|(\.\d*?[1-9])0+)\b")
_BRACES = str.maketrans("", "", "{}")


@lru_cache(maxsize=1 << 16)
def _cached_value_text(kind: type, value: object, rounding: str):
    """format_value, remembered: answers state the same numbers often. `kind` keeps True and 1 apart."""
    return format_value(value, rounding)


def _value_text(value: object, rounding: str):
    try:
        return _cached_value_text(value.__class__, value, rounding)
    except TypeError:  # an unhashable value
        return format_value(value, rounding)


def format_gt(rows: Iterable[Sequence[object]], rounding: str = "half_up") -> str:
    """Rows of values as the `gt` string: `{a | b} || {c | d}`; NULLs inside a row are left out."""
    parts = []
    for row in rows:
        values = [t for t in (_value_text(v, rounding) for v in row) if t is not None]
        parts.append("{" + " | ".join(values) + "}")
    return " || ".join(parts)


def gt_rows(gt: str) -> list[list[str]]:
    """`{a | b} || {c | d}` -> [["a", "b"], ["c", "d"]]; a gt without braces (`Yes`) is one value.

    Rows are split on `||`, values on `|`; surrounding braces (and a stray `[` / `)` the release
    sometimes has instead) are removed and values trimmed; empty values and rows are dropped.
    """
    rows: list[list[str]] = []
    for part in str(gt).split("||"):
        text = part.strip()
        if text[:1] in "{[":
            text = text[1:]
            if text[-1:] in "}]":
                text = text[:-1]
            elif text[-1:] == ")" and "(" not in text:
                text = text[:-1]
        elif text[-1:] == "}":
            text = text[:-1]
        values = [v.strip() for v in text.split("|")]
        values = [v for v in values if v]
        if values:
            rows.append(values)
    return rows


def drop_trailing_zeros(text: str) -> str:
    """Trailing zeros of decimal numbers followed by a word boundary (`100.00%` -> `100%`)."""
    if "." not in text:
        return text
    return _TRAILING_ZEROS_RE.sub(r"\1\2", text)


def gt_value_list(gt: str, *, lower: bool = True, drop_zeros: bool = True) -> list[str]:
    """The gt's values in order, repeats and empty values kept (the release's reading, module doc).

    ``lower=False`` keeps the case and ``drop_zeros=False`` a number's trailing zeros: the
    oracle answers with the values as written, and strict mode reads a number's precision.
    """
    s = (_DIGIT_COMMA_RE.sub("", gt) if "," in gt else gt).strip().translate(_BRACES).replace("||", "|")
    if lower:
        s = s.lower()
    out = []
    for v in s.split("|"):
        v = v.strip()
        if "," in v:
            v = _DIGIT_COMMA_RE.sub("", v)
        out.append(drop_trailing_zeros(v) if drop_zeros else v)
    return out


def gt_values(gt: str) -> frozenset[str]:
    """The set of gt values both scoring modes score against."""
    return frozenset(gt_value_list(gt))
