"""How a question says an attribute's values: the vocabulary's phrases (seeds/domain_attributes.csv).

* ``value_phrase``: the values with their head noun, wherever a template puts the attribute
  (``{value} areas``: "in Urban or Rural areas"; ``the {value} term``: "in the Autumn term"). The head noun
  belongs to the vocabulary, not to the templates: a template that repeats it next to the placeholder
  is an error, so no family's phrasing says "Urban areas areas" or leaves it out.
* ``qualifier_phrase``: the values said after the head noun that they share with another condition's
  values (``of type {value}``, ``with a {value} degree``). Where a template stacks the values of two
  attributes before one noun (``of__$Funding__$Project_Type__projects``), a coordinated list there has
  no clear scope ("Private or Mixed Shopping mall or Hotel projects"); the rendering then says every
  value but the first with its qualifier ("Private or Mixed projects of type Shopping mall or Hotel"),
  so every attribute after the first of such a stack needs one.

A phrase holds `{value}` once (where the "or" list of values goes) and plain words around it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .template_syntax import ParsedTemplate, seed_row_error
from .types import NLTemplateError

ATTRIBUTES_FILE = "seeds/domain_attributes.csv"
_PHRASE_WORDS = re.compile(r"^[^{}$_=|]*$")


@dataclass(frozen=True)
class ValuePhrase:
    before: str  # words before the values ("the"), maybe empty
    after: str  # words after them ("areas"), maybe empty

    def fill(self, listed: str) -> str:
        return " ".join(p for p in (self.before, listed, self.after) if p)


def read_phrase(raw, column: str, domain: str, attribute: str, line: Optional[int]) -> Optional[ValuePhrase]:
    """A phrase from one cell of domain_attributes (None when blank), or a clear error naming the row."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    text = " ".join(raw.split())
    where = f"{ATTRIBUTES_FILE}: row (domain={domain!r}, attribute_name={attribute!r}" + \
            (f", line {line}" if line is not None else "") + ")"
    if text.count("{value}") != 1:
        raise NLTemplateError(f"{where}: {column} {raw!r} must hold {{value}} exactly once")
    before, _, after = (p.strip() for p in text.partition("{value}"))
    if not before and not after:
        raise NLTemplateError(f"{where}: {column} {raw!r} says nothing but the value (leave it blank)")
    for part in (before, after):
        if not _PHRASE_WORDS.match(part):
            raise NLTemplateError(f"{where}: {column} {raw!r}: only plain words around {{value}} "
                                  "(no '{', '}', '$', '_', '=' or '|')")
    return ValuePhrase(before, after)


def placeholder_stacks(tokens_elems, links) -> list[list[int]]:
    """Runs of placeholders standing next to each other in a token (no word between them)."""
    out: list[list[int]] = []
    cur: list[int] = []
    for i, e in enumerate(tokens_elems):
        if e.kind == "attr" and cur and links[i - 1] in ("_", "__", ""):
            cur.append(i)
            continue
        if len(cur) > 1:
            out.append(cur)
        cur = [i] if e.kind == "attr" else []
    if len(cur) > 1:
        out.append(cur)
    return out


def check_template_phrases(template: ParsedTemplate, codes: dict, value_phrases: dict, qualifiers: dict,
                           row: dict) -> None:
    """A template neither repeats a value phrase's words next to its placeholder, nor stacks an
    attribute without a qualifier phrase after another attribute's values (see the module docstring)."""
    for tok in template.tokens:
        elems = tok.elems
        for i, e in enumerate(elems):
            if e.kind != "attr" or e.text not in value_phrases:
                continue
            phrase = value_phrases[e.text]
            nxt = elems[i + 1].text if i + 1 < len(elems) and elems[i + 1].kind in ("word", "keep") else ""
            prv = elems[i - 1].text if i > 0 and elems[i - 1].kind in ("word", "keep") else ""
            if phrase.after and nxt.lower() == phrase.after.split()[0].lower():
                raise seed_row_error(f"${e.text} is followed by {nxt!r}, which its value_phrase in "
                                     f"{ATTRIBUTES_FILE} already says: drop it from the template", row)
            if phrase.before and prv.lower() == phrase.before.split()[-1].lower():
                raise seed_row_error(f"${e.text} follows {prv!r}, which its value_phrase in "
                                     f"{ATTRIBUTES_FILE} already says: drop it from the template", row)
        for stack in placeholder_stacks(elems, tok.links):
            first = codes.get(elems[stack[0]].text, (elems[stack[0]].text,))[0]
            for i in stack[1:]:
                name = elems[i].text
                if codes.get(name, (name,))[0] != first and name not in qualifiers:
                    raise seed_row_error(
                        f"${name} stands after ${elems[stack[0]].text} before one head noun, so a list of "
                        f"values there has no clear scope: give {name} a qualifier_phrase in "
                        f"{ATTRIBUTES_FILE} (e.g. 'of type {{value}}')", row)
