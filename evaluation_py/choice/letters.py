"""The two scorings of a choice answer: the letter read from the text, and the first output token's
probabilities of A against B.

Text: the answer's leading capital letter (`B`, `B.`, `Answer: B`, `**A**`; a lower-case one only
alone: `b`, `(b)`), unless the other letter follows; else the one letter
named as `answer/option X` in it; anything else (both letters, none, `no answer`) is an abstention.

Log-probabilities: the first token's top alternatives (`logprobs_json` as the backends store it:
`{token, logprob, top_logprobs: [{token, logprob}, ...]}`); every alternative that normalises to a
letter (` A`, `A.`, `a`, `(A`, `**B`) adds its probability to that letter. The choice is the letter
with more mass; the right letter's share of the A+B mass is `p_right`. A first token whose top
alternatives hold neither letter gives no logprob choice (status `no_letter_in_top_logprobs`).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Optional

_LEADING = re.compile(r"^[\s*_`\"'(\[]*(?:(?i:the\s+)?(?i:right\s+|correct\s+)?(?i:answer|option)\s*(?i:is)?\s*[:\-]?\s*)?"
                      r"[\s*_`\"'(\[]*([AB])(?![A-Za-z0-9])")
_NAMED = re.compile(r"\b(?:answer|option)\s*(?:is)?\s*[:\-]?\s*[*_(\[]*([AB])\b", re.I)
_TOKEN_EDGE = " \t\n\r*_`\"'()[].:,;!?-▁Ġ"


def letter_from_text(response: Optional[str]) -> Optional[str]:
    """`A`, `B`, or None (an abstention)."""
    if not response:
        return None
    bare = response.strip(_TOKEN_EDGE)
    if bare in ("a", "b"):  # a lower-case letter alone (elsewhere `a` is an article)
        return bare.upper()
    m = _LEADING.match(response)
    if m:
        other = "B" if m.group(1) == "A" else "A"
        if re.search(rf"(?<![A-Za-z0-9]){other}(?![A-Za-z0-9])", response[m.end():]):
            return None  # names both letters ("A and B", "A or B")
        return m.group(1)
    named = {x.upper() for x in _NAMED.findall(response)}
    return named.pop() if len(named) == 1 else None


def token_letter(token: Optional[str]) -> Optional[str]:
    """The letter a first token stands for (` A`, `A.`, `a`, `**B`), or None."""
    if token is None:
        return None
    t = token.strip(_TOKEN_EDGE)
    return t.upper() if t in ("A", "B", "a", "b") else None


@dataclass(frozen=True)
class LetterProbs:
    p_a: float  # summed probability of the alternatives that read A
    p_b: float
    status: str  # "scored" or "no_letter_in_top_logprobs"

    @property
    def choice(self) -> Optional[str]:
        if self.p_a > self.p_b:
            return "A"
        if self.p_b > self.p_a:
            return "B"
        return None


def letter_probs(logprobs_json: str) -> LetterProbs:
    """A vs B from the first token's alternatives (the chosen token counts once, if not among them)."""
    first = json.loads(logprobs_json)
    alts = list(first.get("top_logprobs") or [])
    if first.get("token") is not None and all(a.get("token") != first["token"] for a in alts):
        alts.append({"token": first["token"], "logprob": first.get("logprob")})
    mass = {"A": 0.0, "B": 0.0}
    seen = set()
    for a in alts:
        tok, lp = a.get("token"), a.get("logprob")
        letter = token_letter(tok)
        if letter is None or lp is None or tok in seen or not math.isfinite(float(lp)):
            continue
        seen.add(tok)
        mass[letter] += math.exp(float(lp))
    status = "scored" if mass["A"] + mass["B"] > 0 else "no_letter_in_top_logprobs"
    return LetterProbs(mass["A"], mass["B"], status)
