"""The LLM judge's prompt (versioned) and the reading of its verdict.

The judge sees the question, the ground truth and the answer (as the answer's inference mode
extracts it), never the table: it says whether the answer states the ground truth. Changing the
wording means a new :data:`JUDGE_PROMPT_VERSION`: the version enters each judge request's cache
key, so verdicts under another wording are asked again, never mixed.

A verdict (:func:`parse_verdict`) is read, first rule that applies:

1. after the last ``verdict`` marker (``Verdict: correct``), its first word;
2. after the last ``score`` marker, or as ``N/10`` / ``N out of 10``, one number from 0 to 10;
3. the reply as a whole, stripped of Markdown and punctuation: one verdict word or one number 0-10;
4. the reply's first line starting with a verdict word (``Incorrect: the total is 12.``).

Verdict words elsewhere are not read: a reply that repeats the prompt, or discusses the answer
without concluding, has no verdict.

Verdict words: ``correct``, ``right``, ``yes``, ``true`` (correct); ``incorrect``, ``wrong``,
``no``, ``false``, ``not correct`` (incorrect). A verdict scores 1 or 0, a number ``N`` scores
``N / 10`` and counts as correct from 5 on. Anything else (nothing readable, words that
a number outside 0-10) raises :class:`VerdictError`: an unparsable verdict is an error
of the judgement, never a 0. No dbt imports.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from generator_py.release.gt import gt_rows

JUDGE_PROMPT_VERSION = "judge-v1"
MAX_ANSWER_CHARS = 2000  # a longer answer is cut (and says so): a judge prompt stays small
CORRECT_FROM = 0.5  # a score of 5/10 or more counts as correct

INSTRUCTIONS = (
    "You grade answers to questions about a table. You are given the question, the ground-truth answer and a "
    "candidate answer. The candidate is correct when it states the same values as the ground truth: numbers "
    "equal at the ground truth's precision, values in any order, wording and formatting aside; an explanation "
    "around the values does not matter. A missing, extra or different value makes it incorrect. "
    "Reply with one line: \"Verdict:\" followed by one word, correct or incorrect.")


class Verdict(NamedTuple):
    score: float  # in [0, 1]
    correct: bool


class VerdictError(ValueError):
    """A judge reply with no readable verdict."""


def ground_truth_text(answer_gt: str) -> str:
    """The gt string as a reader writes it: a row's values joined by `, `, rows by `; `."""
    rows = gt_rows(answer_gt)
    return "; ".join(", ".join(row) for row in rows) if rows else str(answer_gt)


def user_message(question: str, answer_gt: str, answer: str) -> str:
    """The judge's user message for one prediction (the fake server in tests is keyed by it)."""
    answer = str(answer).strip()
    if len(answer) > MAX_ANSWER_CHARS:
        answer = answer[:MAX_ANSWER_CHARS] + " [... cut]"
    return (f"Question: {question}\n"
            f"Ground truth: {ground_truth_text(answer_gt)}\n"
            f"Candidate answer: {answer}\n"
            "Is the candidate answer correct?")


def build_messages(question: str, answer_gt: str, answer: str, system_role: bool = True) -> tuple[dict, ...]:
    user = user_message(question, answer_gt, answer)
    if system_role:
        return ({"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user})
    return ({"role": "user", "content": INSTRUCTIONS + "\n\n" + user},)


_CORRECT = ("correct", "right", "yes", "true")
_INCORRECT = ("incorrect", "wrong", "no", "false", "not correct")
_WORD = {**{w: True for w in _CORRECT}, **{w: False for w in _INCORRECT}}
_LEADING_WORD_RE = re.compile(r"(not correct|incorrect|correct|right|wrong|yes|no|true|false)\b")
_VERDICT_RE = re.compile(r"\bverdict\b\s*(?:is\b)?\s*[:=\-]?\s*[*_`\"']*\s*(not correct|[a-z]+)")
_NUMBER = r"(-?\d+(?:\.\d+)?)"
_SCORE_RE = re.compile(r"\bscore\b\s*(?:is\b|of\b)?\s*[:=\-]?\s*[*_`\"']*\s*" + _NUMBER)
_OUT_OF_TEN_RE = re.compile(_NUMBER + r"\s*(?:/|out of)\s*10\b")
_EDGES = " \t\n\r*_`\"'.,;:!()[]{}#"


def _from_score(text: str, where: str) -> Verdict:
    x = float(text)
    if not 0.0 <= x <= 10.0:
        raise VerdictError(f"{where}: score {text} is outside 0-10")
    return Verdict(x / 10.0, x / 10.0 >= CORRECT_FROM)


def parse_verdict(reply: str | None) -> Verdict:
    """The verdict of one judge reply (module doc); VerdictError when there is none to read."""
    if reply is None or not str(reply).strip():
        raise VerdictError("empty judge reply")
    text = str(reply).lower()
    shown = " ".join(str(reply).split())[:120]
    marked = list(_VERDICT_RE.finditer(text))
    if marked:
        word = marked[-1].group(1)
        if word in _WORD:
            return Verdict(float(_WORD[word]), _WORD[word])
        raise VerdictError(f"judge reply {shown!r}: verdict {word!r} is neither correct nor incorrect")
    scored = list(_SCORE_RE.finditer(text)) or list(_OUT_OF_TEN_RE.finditer(text))
    if scored:
        return _from_score(scored[-1].group(1), f"judge reply {shown!r}")
    whole = " ".join(text.strip(_EDGES).split())
    if whole in _WORD:
        return Verdict(float(_WORD[whole]), _WORD[whole])
    if re.fullmatch(_NUMBER, whole):
        return _from_score(whole, f"judge reply {shown!r}")
    lead = _LEADING_WORD_RE.match(text.strip(_EDGES).split("\n", 1)[0].strip(_EDGES))
    if lead is not None:
        word = lead.group(1)
        return Verdict(float(_WORD[word]), _WORD[word])
    raise VerdictError(f"judge reply {shown!r}: no verdict (correct/incorrect) or score 0-10")
