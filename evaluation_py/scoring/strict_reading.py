"""How ``strict`` mode reads a response: the answer a fair reader would take from it.

``paper`` mode (:mod:`evaluation_py.scoring.paper_reading`) is the release's literal procedure; ``strict``
is this project's own, and the default of the CLI and the marts. Both read the ground truth
the same way (:func:`evaluation_py.scoring.paper_reading.gt_values`, except that ``strict`` keeps a
number's trailing zeros, which set its precision, and drops empty values). The rules:

Unanswered (scored 0 on every metric, kept in the averages and counted): a missing response;
one that, lower-cased and stripped, starts with ``no answer`` or ``error`` (what ``paper``
mode leaves out); one whose answer part (below) starts with a refusal (:data:`REFUSALS`,
e.g. ``I cannot``, ``sorry``, ``n/a``, ``not enough information``); one with no value left.
The ``no answer`` start and those refusals (not a missing, empty or ``error`` response) are also
``refused``: a ground truth that is the documented refusal itself (``no answer``: the table cannot
answer the question) is matched by a refused response alone, as one value.

Answer part, first rule that applies:

1. ``\\boxed{...}``: the contents of every box (braces balanced), each a block of its own;
2. a final-answer marker: the text after the last ``final answer`` (with ``:``, ``=``, ``is``
   or nothing after it), else after the last ``answer:``, ``answer =`` or ``answer is``: the
   rest of the marker's line, or, when the marker ends its line, the lines below it;
3. otherwise the whole response.

Then the answer part is cut at the first trailing-commentary marker (:data:`COMMENT_MARKERS`:
``Note:``, ``Explanation:``, ``<eos_token>``, ...) and at its first blank line, code fences
and backticks are dropped, and so are Markdown emphasis marks (``**``).

Values: an answer part that is a flat JSON array of numbers and strings (``[12.5, 7]``) is its items;
otherwise, when the answer part has a ``|`` it is read in the ground truth's format (``{a | b}
|| {c}``) or as a Markdown table: braces removed, split on ``|`` (so also ``||``) and on line
breaks, separator cells (``---``) dropped. Otherwise each non-empty line is a value, with
Markdown list marks (``-``, ``*``, ``+``, ``•``, ``1.``, ``1)``) removed, and a line of numbers
separated by ``, `` (a comma and a space), ``;`` or ``and`` is those numbers (``40, 86 and 1,234``).
Each value is stripped
of surrounding quotes, braces, ``*``/``_`` and a final ``.``, ``,``, ``;`` or ``:``, lower-cased,
with runs of white space made one space. Empty values are dropped, and repeated ones count once.

Numbers: a value is a number when it is one entirely: an optional sign and currency sign
(``$``, ``€``, ``£``), digits with optional thousands separators (``1,234,567``; a comma in
any other place is text: ``1,5``), an optional decimal part and an optional ``%`` (dropped:
``71.4%`` is 71.4). A short sentence (at most :data:`SHORT_SENTENCE_WORDS` words) holding
exactly one number also reads as that number (``There were 1,234 accidents.``), besides its
text; a value starting with ``yes`` or ``no`` then a punctuation mark also reads as ``yes``
or ``no`` (``Yes, it rose.``).

Matching: a response value matches a numeric ground-truth value when it reads as a number
that differs from it by at most half a unit of the ground truth's last decimal place
(``50.555``, ``50.56`` and ``50.560`` match ``50.56``; ``50.5`` does not; ``1,234`` matches
``1234``, and so does ``1234.4``); any other ground-truth value is matched by equal text.
:func:`match` counts the response's values that match some ground-truth value and the
ground-truth values matched by some response value; the metrics (precision, recall, F1, CC,
and any other registered one) are functions of those counts (:mod:`evaluation_py.scoring.metrics`).

No dbt imports here.
"""
from __future__ import annotations

import json
import re
from decimal import Decimal
from functools import lru_cache
from typing import Iterator, NamedTuple

from generator_py.release.gt import gt_value_list

from .final_answer import MARKER_RE
from .metrics import Match
from .paper_reading import LEFT_OUT_PREFIXES, is_missing

REFUSALS: tuple[str, ...] = (
    "no answer", "error", "i cannot", "i can't", "i can not", "i am unable", "i'm unable", "unable to",
    "i am sorry", "i'm sorry", "sorry", "i don't know", "i do not know", "n/a", "cannot be determined",
    "can't be determined", "cannot determine", "not enough information", "insufficient information",
    "there is not enough information", "there is no information", "the table does not",
    "the question cannot",
)
COMMENT_MARKERS: tuple[str, ...] = (
    "<eos_token>", "<|eot_id|>", "<|im_end|>", "</s>", "#input", "# input", "# solution", "#solution",
    "# explanation", "#explanation", "explanation:", "note:", "table:", "reasoning:",
)
SHORT_SENTENCE_WORDS = 20

_REFUSAL_RE = re.compile(r"(?:%s)(?!\w)" % "|".join(re.escape(r) for r in REFUSALS))
_BOXED_RE = re.compile(r"\\boxed\s*\{")
_ANSWER_RE = re.compile(r"\banswer\s*(?:is\b\s*[:=]?|[:=])", re.IGNORECASE)
_COMMENT_RE = re.compile("|".join(re.escape(m) for m in COMMENT_MARKERS), re.IGNORECASE)
_BLANK_LINE_RE = re.compile(r"\n[ \t]*\n")
_FENCE_RE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_LIST_MARK_RE = re.compile(r"^(?:[-*+•]|\d{1,3}[.)])\s+")
_SEPARATOR_CELL_RE = re.compile(r"^:?-{2,}:?$")
_CELL_SPLIT_RE = re.compile(r"[|\n]")
_EDGE = " \t\"'`*_{}“”‘’"
_SPACES_RE = re.compile(r"\s+")
_NUMBER_RE = re.compile(r"([+-]?)[$€£]?(\d{1,3}(?:,\d{3})+|\d*)(\.\d+)?\s?%?")
_NUMBER_TOKEN_RE = re.compile(r"(?<![\w.,])[+-]?[$€£]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?(?![\w]|[.,]\d)")
_YES_NO_RE = re.compile(r"^(yes|no)[,.!;:]")
_DIGIT_RE = re.compile(r"\d")
_NUMBER_LIST_SPLIT_RE = re.compile(r",\s+|\s*;\s*|\s+and\s+")
_NUMBER_ENDS = frozenset("0123456789%")
_NOT_NUMERIC_RE = re.compile(r"[^\d .,|{}\t-]")  # a character other than digits, spaces and separators


# Plain tuples, not named ones: a build reads hundreds of thousands of values.
# A response value: (texts, number): its texts (the value, and a yes/no reading) and its number or None.
Value = tuple
# A ground-truth value: (text, number, half_unit): half a unit of the last decimal place of number.
GtValue = tuple


class GroundTruth(NamedTuple):
    """A read ground truth: its values, and the same indexed for matching."""
    values: tuple[GtValue, ...]
    texts: frozenset[str]  # the text values
    numbers: tuple[tuple[Decimal, Decimal], ...]  # the numeric values with their half units
    refusal: bool = False  # the ground truth is the documented refusal: the table cannot answer


class Reading(NamedTuple):
    values: tuple[Value, ...]
    unanswered: bool
    refused: bool = False  # the response declines to answer (a refusal, not a missing or failed one)


UNANSWERED = Reading((), True)
REFUSED = Reading((), True, True)
NO_ANSWER = "no answer"  # the refusal the prompts document


def parse_number(text: str) -> Decimal | None:
    """The number a whole (normalised) value states, or None: see "Numbers" in the module doc."""
    if not text or text[-1] not in _NUMBER_ENDS:
        return None
    plain = text[1:] if text[0] == "-" else text
    if plain.isascii() and (plain.isdigit() or (plain[:1] != "." and plain.replace(".", "", 1).isdigit())):
        return Decimal(text)  # the common case, without the pattern
    m = _NUMBER_RE.fullmatch(text)
    if m is None or not (m.group(2) or m.group(3)):
        return None
    return Decimal(m.group(1) + (m.group(2) or "0").replace(",", "") + (m.group(3) or ""))


def _normalise(text: str) -> str:
    if "\u2212" in text:
        text = text.replace("\u2212", "-")
    v = text.strip(_EDGE)
    if "  " in v or "\t" in v or "\n" in v:
        v = _SPACES_RE.sub(" ", v)
    v = v.lower()
    while v and v[-1] in ".,;:":
        v = v[:-1].rstrip(_EDGE)
    return v


@lru_cache(maxsize=1 << 16)
def read_value(raw: str) -> Value | None:
    """One value of a response (None when it is empty after normalisation)."""
    v = raw.strip()
    if v.isdigit() and v.isascii():  # the common case, without the general rules
        return ((v,), Decimal(v))
    v = _normalise(v)
    if not v:
        return None
    number = parse_number(v)
    texts: tuple[str, ...] = (v,)
    if number is None:
        m = _YES_NO_RE.match(v)
        if m is not None:
            texts = (v, m.group(1))
        if " " in v and v.count(" ") < SHORT_SENTENCE_WORDS and _DIGIT_RE.search(v):
            tokens = _NUMBER_TOKEN_RE.findall(v)
            if len(tokens) == 1:
                number = parse_number(tokens[0])
    return (texts, number)


def _boxed(text: str) -> list[str]:
    out = []
    for m in _BOXED_RE.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append(text[m.end(): i - 1] if depth == 0 else text[m.end():])
    return out


def _after_last(pattern: re.Pattern, text: str) -> str | None:
    last = None
    for last in pattern.finditer(text):
        pass
    if last is None:
        return None
    line, _, below = text[last.end():].partition("\n")
    if line.strip(" \t*_#:"):
        return line.strip()
    return below.lstrip()


def answer_part(response: str) -> str:
    """The part of a response that holds its answer: "Answer part" in the module doc."""
    text = response.replace("\r\n", "\n").replace("\r", "\n") if "\r" in response else response
    boxed = _boxed(text) if "\\boxed" in text else []
    if boxed:
        text = "\n".join(boxed)
    else:
        lowered = text.lower()
        if "answer" in lowered:
            part = _after_last(MARKER_RE, text) if "final" in lowered else None
            if part is None:
                part = _after_last(_ANSWER_RE, text)
            if part is not None:
                text = part
    text = text.strip()
    m = _COMMENT_RE.search(text)
    if m is not None:
        text = text[: m.start()]
    if "\n" in text:
        text = _FENCE_RE.sub("", text).strip("\n")
        m = _BLANK_LINE_RE.search(text)
        if m is not None:
            text = text[: m.start()]
    if "`" in text or "*" in text:
        text = text.replace("`", "").replace("**", "")
    return text.strip()


def _json_array(answer: str) -> list[str] | None:
    """The items of an answer that is a flat JSON array of numbers and strings (`[12.5, 7]`), else None."""
    text = answer.strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        items = json.loads(text)
    except ValueError:
        return None
    if not isinstance(items, list) or not all(isinstance(v, (int, float, str)) and not isinstance(v, bool)
                                              for v in items):
        return None
    return [v if isinstance(v, str) else str(v) for v in items]


def split_values(answer: str) -> list[str]:
    """The raw values of an answer part: "Values" in the module doc."""
    return list(_raw_values(answer))


def _raw_values(answer: str) -> Iterator[str]:
    """split_values, one at a time."""
    items = _json_array(answer) if "[" in answer else None
    if items is not None:
        yield from items
        return
    if "|" in answer:
        for c in _CELL_SPLIT_RE.split(answer.replace("{", "").replace("}", "")):
            if not _SEPARATOR_CELL_RE.match(c.strip()):
                yield c
        return
    for line in answer.split("\n"):
        line = _LIST_MARK_RE.sub("", line.strip())
        parts = _NUMBER_LIST_SPLIT_RE.split(line) if _DIGIT_RE.search(line) else ()
        if len(parts) > 1 and all(parse_number(_normalise(p)) is not None for p in parts):
            yield from parts  # a line of numbers: `40, 86 and 12`
        else:
            yield line


def read_response(response) -> Reading:
    """The values strict mode reads from one raw response, and whether it counts as unanswered."""
    if is_missing(response):
        return UNANSWERED
    response = str(response)
    if response.lower().strip().startswith(LEFT_OUT_PREFIXES):
        return REFUSED if response.lower().strip().startswith(NO_ANSWER) else UNANSWERED
    answer = answer_part(response)
    if _REFUSAL_RE.match(answer.lower().lstrip(_EDGE)):
        return UNANSWERED if answer.lower().lstrip(_EDGE).startswith("error") else REFUSED
    values: dict = {}
    for raw in _raw_values(answer):
        v = read_value(raw)
        if v is not None:
            values.setdefault(v, None)
    if not values:
        return UNANSWERED
    return Reading(tuple(values), False)


def is_unanswered(response) -> bool:
    """``read_response(response).unanswered``, read no further than the first value (what paper mode asks)."""
    if is_missing(response):
        return True
    response = str(response)
    if _DIGIT_RE.search(response) and not _NOT_NUMERIC_RE.search(response) and not _LIST_MARK_RE.match(response.strip()):
        return False  # one line of digits and separators, no list mark: nothing cuts or drops a digit, a value
    if response.lower().strip().startswith(LEFT_OUT_PREFIXES):
        return True
    answer = answer_part(response)
    if _REFUSAL_RE.match(answer.lower().lstrip(_EDGE)):
        return True
    return all(read_value(raw) is None for raw in _raw_values(answer))


@lru_cache(maxsize=None)
def _half_unit(exponent: int) -> Decimal:
    return Decimal(5).scaleb(exponent - 1)


_HALF = _half_unit(0)


@lru_cache(maxsize=1 << 16)
def _gt_value(raw: str) -> GtValue | None:
    if raw.isdigit() and raw.isascii():  # the common case (gt_value_list strips), without the general rules
        return (raw, Decimal(raw), _HALF)
    text = _normalise(raw)
    if not text:
        return None
    number = parse_number(text)
    half = None if number is None else _half_unit(number.as_tuple().exponent)
    return (text, number, half)


def read_gt(gt: str) -> GroundTruth:
    """The ground truth's distinct non-empty values, with their numbers and tolerances."""
    out: dict = {}
    for raw in gt_value_list(gt, drop_zeros=False):
        g = _gt_value(raw)
        if g is not None and g[0] not in out:
            out[g[0]] = g
    values = tuple(out.values())
    return GroundTruth(values, frozenset(t for t, x, _ in values if x is None),
                       tuple((x, half) for _, x, half in values if x is not None),
                       len(values) == 1 and values[0][0] == NO_ANSWER)


def match(reading: Reading, gt: GroundTruth) -> Match:
    """How many values of the reading match the read ground truth, and how many of its values are matched."""
    n_gt = len(gt.values)
    if gt.refusal:
        return Match(1, 1, 1, 1) if reading.refused else Match(len(reading.values), 0, 1, 0)
    if reading.unanswered or not n_gt:
        return Match(len(reading.values), 0, n_gt, 0)
    texts, numbers = gt.texts, gt.numbers
    hit_values = 0
    hit_gt: set = set()
    for v_texts, x in reading.values:
        hit = False
        for t in v_texts:
            if t in texts:
                hit = True
                hit_gt.add(t)
        if x is not None:
            for i, (g, half) in enumerate(numbers):
                if abs(x - g) <= half:
                    hit = True
                    hit_gt.add(i)
        hit_values += hit
    return Match(len(reading.values), hit_values, n_gt, len(hit_gt))
