"""How the HCT-QA release reads a response and a ground truth: the ``paper`` scoring rules.

This is the release's own procedure, step for step, so that ``paper`` mode gives its
published numbers to the last bit. The ground-truth reading (:func:`gt_values`) is also the
one ``strict`` mode uses: the set of expected values is the benchmark's, whatever the mode.

Left out (:func:`is_left_out`): a missing response (``None``/NaN), or one that, lower-cased
and stripped, starts with ``no answer`` or ``error``. An empty string is not left out.

Response (:func:`clean_response`, then :func:`response_values`), in this order:

1. lower-case and strip;
2. find the position ``p`` of the first occurrence of any of :data:`CUT_MARKERS`;
3. delete every occurrence, anywhere, of ``answer`` + optional whitespace + ``:`` or ``=``
   + optional whitespace;
4. if a marker was found, cut the string *as it is now* at ``p`` (``p`` was measured before
   step 3, so when an ``answer:`` came before the marker the cut lands after the marker);
5. keep what comes before the first ``\\n\\n``, then what comes before the first
   ``\\n```\\n``;
6. remove every backtick and every newline (lines are joined with nothing);
7. five times, remove a comma between two digits, one non-overlapping pass at a time
   (``1,234,567`` -> ``1234567``, ``1,5`` -> ``15``, ``1,2,3`` -> ``123``): that is every comma with a digit
   on both sides (a pass leaves a comma only after a one-digit number whose comma before it went, and the
   next pass takes those), which one pass of a lookaround pattern removes;
8. strip; remove one comma at the very start and one at the very end;
9. remove the trailing zeros of every decimal number followed by a word boundary
   (``100.00%`` -> ``100%``, ``5.0`` -> ``5``, ``71.40%`` -> ``71.4%``);
10. split on ``||`` and strip each value. Empty values are kept: ``9 ||`` predicts ``9``
    and the empty string.

Ground truth (:func:`generator_py.release.gt.gt_values`): remove every comma between two digits; lower-case, strip;
delete every ``{`` and ``}``; replace ``||`` by ``|``; split on ``|``; strip each value, then
remove digit commas and trailing zeros (as in step 9) per value. Empty values are kept, and
nothing else splits: ``{30.41 | 32.22} {69.59 | 67.78}`` gives ``30.41``, ``32.22 69.59``
and ``67.78``.

The release's variants of this reading (scoring modes ``paper-hitab`` and ``paper-gpt``) change the value
lists after step 10: :func:`hitab_values` and :func:`gpt_values`.

No dbt imports here.
"""
from __future__ import annotations

import math
import re

from generator_py.release.gt import drop_trailing_zeros

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
LEFT_OUT_PREFIXES: tuple[str, ...] = ("no answer", "error")

_ANSWER_RE = re.compile(r"answer\s*[:=]\s*")
_DIGIT_COMMA_RE = re.compile(r"(?<=\d),(?=\d)")


def is_missing(x) -> bool:
    """``None`` or a float NaN (what pandas gives for a missing response)."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def is_left_out(response) -> bool:
    """Whether ``paper`` mode leaves this raw response out of its averages."""
    if is_missing(response):
        return True
    return str(response).lower().strip().startswith(LEFT_OUT_PREFIXES)


def clean_response(response: str) -> str:
    """Steps 1-9 of the module doc: the response text the release splits on ``||``."""
    s = response.lower().strip()
    p = -1
    for marker in CUT_MARKERS:
        i = s.find(marker)
        if i >= 0 and (p < 0 or i < p):
            p = i
    if "answer" in s:
        s = _ANSWER_RE.sub("", s)
    if p >= 0:
        s = s[:p]
    s = s.split("\n\n", 1)[0]
    s = s.split("\n```\n", 1)[0]
    s = s.replace("`", "").replace("\n", "")
    if "," in s:
        s = _DIGIT_COMMA_RE.sub("", s)
    s = s.strip()
    if s.startswith(","):
        s = s[1:]
    if s.endswith(","):
        s = s[:-1]
    return drop_trailing_zeros(s)


def response_values(cleaned: str) -> frozenset[str]:
    """Step 10: the set of values of a cleaned response (split on ``||``, empty values kept)."""
    return frozenset(response_value_list(cleaned))


def response_value_list(cleaned: str) -> list[str]:
    """Step 10 as a list: the values of a cleaned response in their order (split on ``||``, stripped)."""
    return [v.strip() for v in cleaned.split("||")]


# a plain number: an optional minus, digits, optional decimals
_PLAIN_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
# label: number -- the label ASCII letters and spaces (the text is lower-cased), beginning and ending with a letter
_LABEL_NUMBER = re.compile(r"([a-z](?:[a-z ]*[a-z])?): +(-?\d+(?:\.\d+)?)")


def percent_free(values: list[str]) -> list[str]:
    """``paper-hitab``, first rule: every ``%`` removed from each response value."""
    return [v.replace("%", "") for v in values]


def hitab_values(response: frozenset[str], gt: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """``paper-hitab``, the number rule on the response's values (``%`` already removed) and the gt's.

    When both hold one value and both are plain numbers: if exactly one is negative, its minus is
    dropped; then if one lies strictly between 0 and 1 and the other is 1 or more, the one between 0
    and 1 is multiplied by 100, rounded to 6 decimals and written without trailing zeros or point.
    Anything else comes back unchanged."""
    if len(response) != 1 or len(gt) != 1:
        return response, gt
    (r,), (g,) = response, gt
    if not (_PLAIN_NUMBER.fullmatch(r) and _PLAIN_NUMBER.fullmatch(g)):
        return response, gt
    if r.startswith("-") != g.startswith("-"):
        r, g = r.removeprefix("-"), g.removeprefix("-")
    rv, gv = float(r), float(g)
    if 0 < rv < 1 and gv >= 1:
        r = _times_100(rv)
    elif 0 < gv < 1 and rv >= 1:
        g = _times_100(gv)
    return frozenset((r,)), frozenset((g,))


def _times_100(x: float) -> str:
    return f"{round(x * 100, 6):.6f}".rstrip("0").rstrip(".")


def gpt_values(values: list[str]) -> list[str]:
    """``paper-gpt``: a response value ``label: number`` becomes two values, the label and the number."""
    out: list[str] = []
    for v in values:
        m = _LABEL_NUMBER.fullmatch(v)
        if m:
            out.extend(m.groups())
        else:
            out.append(v)
    return out
