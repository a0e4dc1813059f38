"""The word mapping of the obfuscated variant: every content word of the synthetic tables gets one invented,
pronounceable non-word, the same in every table, question and answer.

A word is a run of two or more letters (`Victim_Age` holds `Victim` and `Age`; `2019` and `18-24` hold
none), matched case-insensitively; the replacement takes the original's case pattern (UPPER, Capitalised,
lower). Function words, `value` and the aggregation terms (`Total`, `Average`, ...) are structure, not
content: they stay, as numbers do.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, Optional

import pandas as pd

from ..core.rng import rng_for

WORD = re.compile(r"[^\W\d_]{2,}")

# kept as they are: they carry the table's and the question's structure, not the domain's meaning
KEPT_WORDS = frozenset("""
a an and as at by for from in into of on or per the to with without not no non than each all
value values
""".split())

# syllables: an onset consonant (or a cluster), a vowel; the last syllable may close on a soft consonant
_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "dr", "kl", "pr", "st", "tr")
_VOWELS = ("a", "e", "i", "o", "u")
_CODAS = ("", "", "n", "r", "l", "s", "k")
_SYLLABLES = 3
_MAX_DRAWS = 1000


def nonword(rng) -> str:
    """A pronounceable non-word of three consonant-vowel syllables (lower case), e.g. `brozimal`."""
    return "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(_SYLLABLES)) + rng.choice(_CODAS)


def words_of(text: Optional[str], kept: frozenset = KEPT_WORDS) -> list[str]:
    """The content words of `text`, lower-cased, in order (kept words and numbers left out)."""
    if not text:
        return []
    return [w for w in (m.group(0).lower() for m in WORD.finditer(text)) if w not in kept]


def _cased(word: str, like: str) -> str:
    if len(like) > 1 and like.isupper():
        return word.upper()
    if like[0].isupper():
        return word[0].upper() + word[1:]
    return word


class WordMap:
    """word -> non-word (both lower case), one-to-one; `kept`: the words that stay."""

    def __init__(self, mapping: dict[str, str], kept: frozenset = KEPT_WORDS):
        inverse = {r: w for w, r in mapping.items()}
        if len(inverse) != len(mapping):
            raise ValueError("obfuscation word map: two words share a replacement")
        self.mapping = mapping
        self.inverse = inverse
        self.kept = kept
        self._memo: dict = {}  # table text repeats (labels on every row): each distinct text mapped once
        self._restored: dict = {}  # and each distinct answer text mapped back once

    def _substitute(self, text: Optional[str], table: dict, only: Optional[frozenset], strict: bool):
        if text is None or text is pd.NA or (isinstance(text, float) and text != text):
            return None

        def one(m: re.Match) -> str:
            word = m.group(0)
            key = word.lower()
            if key in self.kept or (only is not None and key not in only):
                return word
            out = table.get(key)
            if out is None:
                if strict:
                    raise KeyError(f"obfuscation: the word {word!r} of {text!r} has no replacement "
                                   "(it is in no vocabulary the word map was built from)")
                return word
            return _cased(out, word)

        return WORD.sub(one, str(text))

    def obfuscate(self, text: Optional[str], only: Optional[frozenset] = None) -> Optional[str]:
        """`text` with every content word replaced; with `only`, just the words in it (lower case).
        A content word without a replacement is an error naming it (table text is never half-obfuscated)."""
        if only is not None or not isinstance(text, str):
            return self._substitute(text, self.mapping, only, strict=True)
        out = self._memo.get(text)
        if out is None:
            out = self._memo[text] = self._substitute(text, self.mapping, None, strict=True)
        return out

    def restore(self, text: Optional[str]) -> Optional[str]:
        """The inverse of `obfuscate` (up to the case of words whose case was mixed, e.g. `McLeod`)."""
        if not isinstance(text, str):
            return self._substitute(text, self.inverse, None, strict=False)
        out = self._restored.get(text)
        if out is None:
            out = self._restored[text] = self._substitute(text, self.inverse, None, strict=False)
        return out

    def frame(self) -> pd.DataFrame:
        words = sorted(self.mapping)
        return pd.DataFrame({"word": words, "replacement": [self.mapping[w] for w in words]})

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, kept: frozenset = KEPT_WORDS) -> "WordMap":
        return cls(dict(zip(frame["word"].astype(str), frame["replacement"].astype(str))), kept)


def build_word_map(texts: Iterable[Optional[str]], reserved: Iterable[Optional[str]], seed: int,
                   kept: frozenset = KEPT_WORDS, draw: Callable = nonword) -> WordMap:
    """One non-word per content word of `texts`, seeded per word (adding a word never changes another's
    replacement unless they collide). A replacement is never a word of `reserved` (the project's real
    vocabulary: every word of the seeds), never a word being replaced and never another's replacement."""
    words = sorted({w for t in texts for w in words_of(t, kept)})
    taken = {w for t in reserved for w in (m.group(0).lower() for m in WORD.finditer(t or ""))}
    taken |= set(words) | set(kept)
    mapping = {}
    for word in words:
        rng = rng_for(seed, "obfuscation", word)
        for _ in range(_MAX_DRAWS):
            candidate = draw(rng)
            if candidate not in taken:
                break
        else:
            raise ValueError(f"obfuscation: no free non-word for {word!r} after {_MAX_DRAWS} draws")
        taken.add(candidate)
        mapping[word] = candidate
    return WordMap(mapping, kept)
