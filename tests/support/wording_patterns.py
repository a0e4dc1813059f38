"""Counting the wordings no person would use over built questions.

Shared by tests/e2e/test_question_sense.py (asserts the counts over a CI-scale build) and
bench/wording_patterns.py (reports them over any build). A check reads the question text and, where it
needs to know what was said, the question's own spec (its filters), and the vocabulary
(seeds/domain_attributes.csv: spoken_name, value_phrase), so it covers every domain, not a list of words.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from typing import Iterable

from generator_py.questions.word_lists import or_list

FIXED_PATTERNS = {
    "Please, report": re.compile(r"Please, report"),
    "for each X, of ...": re.compile(r"for each [^,?.]+, of\b"),
    "Import Export": re.compile(r"Import Export"),
}
PATTERNS = tuple(FIXED_PATTERNS) + ("attribute said as a column name", "value without its head noun",
                                    "coordination without clear scope")


def vocabulary(attributes_df) -> dict:
    """domain -> attribute name -> (spoken_name or None, value_phrase or None), from domain_attributes rows."""
    out: dict = {}
    for r in attributes_df.to_dict("records"):
        def text(key):
            v = r.get(key)
            return v.strip() if isinstance(v, str) and v.strip() else None
        out.setdefault(str(r["domain"]), {})[str(r["attribute_name"])] = (text("spoken_name"), text("value_phrase"))
    return out


def _scopes(spec: dict) -> list[list[tuple[str, list]]]:
    """The filters of the question and of its sub-query (each a list of (attribute, values))."""
    scopes = [[(f["attribute"], [str(v) for v in f["values"]]) for f in spec.get("filters") or []]]
    sj = spec.get("semi_join")
    if sj and sj.get("filters"):
        scopes.append([(f["attribute"], [str(v) for v in f["values"]]) for f in sj["filters"]])
    return scopes


def question_problems(question: str, spec: dict, vocab: dict) -> list[str]:
    """The wording problems (names from PATTERNS) of one question of a domain with vocabulary `vocab`
    (attribute name -> (spoken_name, value_phrase))."""
    found = [name for name, p in FIXED_PATTERNS.items() if p.search(question)]
    body = question[1:]  # a name at the start of the sentence is capitalised anyway
    for filters in _scopes(spec):  # values may hold a name ('Quebec City'): read the text without them
        for _, values in filters:
            for v in values:
                body = body.replace(v, " ")
    for attr, (spoken, _) in vocab.items():
        shown = attr.replace("_", " ")
        if spoken and spoken != shown and re.search(r"\b" + re.escape(shown) + r"\b", body):
            found.append("attribute said as a column name")
            break
    for filters in _scopes(spec):
        for attr, values in filters:
            phrase = vocab.get(attr, (None, None))[1]
            # the value phrase must show around the condition's values (a value shown through a more
            # specific level of its hierarchy is not printed at all, so only printed values count)
            if phrase and _bare(question, values, phrase):
                found.append("value without its head noun")
                break
        if _ambiguous(question, filters):
            found.append("coordination without clear scope")
    return sorted(set(found), key=PATTERNS.index)


def _bare(question: str, values: list, phrase: str) -> bool:
    """The values are printed, but not inside their phrase (e.g. 'in Urban' for '{value} areas')."""
    before, _, after = phrase.partition("{value}")
    listed = or_list(values)
    for m in re.finditer(re.escape(listed), question):
        if not (question[:m.start()].endswith(before) and question[m.end():].startswith(after)):
            return True
    return False


def _ambiguous(question: str, filters: list) -> bool:
    """A coordinated value list ('A or B') standing right next to a value of another condition, so the
    'or' has no clear scope ('Private or Mixed Shopping mall or Hotel projects', 'Female Bachelor or
    Master graduates')."""
    others_all = {a: [re.escape(v) for v in vs] for a, vs in filters}
    for attr, values in filters:
        if len(values) < 2:
            continue
        listed = or_list(values)
        others = [v for a, vs in others_all.items() if a != attr for v in vs]
        if not others:
            continue
        alt = "|".join(sorted(others, key=len, reverse=True))
        for m in re.finditer(re.escape(listed), question):
            if re.search(r"\b(?:" + alt + r") $", question[:m.start()]) or \
                    re.match(r" (?:" + alt + r")\b", question[m.end():]):
                return True
    return False


def count_problems(rows: Iterable[tuple], vocab_by_domain: dict) -> tuple[Counter, dict, int]:
    """Counts over (question_id, dataset, question, spec_json) rows: problem -> number of questions,
    problem -> up to 3 example questions, and the number of rows read."""
    counts: Counter = Counter({p: 0 for p in PATTERNS})
    examples: dict = {p: [] for p in PATTERNS}
    n = 0
    for qid, dataset, question, spec_json in rows:
        n += 1
        spec = json.loads(spec_json) if spec_json else {}
        for p in question_problems(question, spec, vocab_by_domain.get(dataset, {})):
            counts[p] += 1
            if len(examples[p]) < 3:
                examples[p].append(question)
    return counts, examples, n
