"""The NL template mini-language of the HCT-QA paper (Appendix B-D): its syntax and its parser.

A template is a sentence of whitespace-separated tokens. Inside a token, elements are linked:

* ``word_$Attr``  ``_`` links words to their neighbour: a ``_``-linked run of elements is shown only
  when a placeholder in it is present (``of_$Year`` disappears when the question has no Year condition).
* ``of__$Item__$Category``  ``__`` links the attributes of one group: words linked only by ``__`` show
  when any placeholder of the token is present, and among attributes of one hierarchical code only the
  most specific present one is shown (simplifyNested: "of Milk", never "of Milk Dairy").
* ``$Quarter==of==$Year``  a word between ``==`` links shows only when both neighbours are present.
* ``of_((students))``  the run holding ``((word))`` is dropped when ``word`` appears later in the sentence.
* ``a/b``  singular/plural picked by the number of expressions; in a run linked to ``$TOPK`` or
  ``$ORDERBYDESC`` the first form is for DESC (``top/bottom_$TOPK``, ``$ORDERBYDESC_decreasing/increasing``).

Placeholders: ``$<attribute name>`` (the values of that attribute's condition, as an English "or" list),
and the reserved words ``$EXPR`` (minimum, maximum, total, average), ``$EXPRSUP`` (lowest, highest, total,
average), ``$GROUPBY`` ("for each A and B"), ``$TOPK`` (k), ``$ORDERBYDESC`` (direction selector, prints
nothing), ``$OPPATTR`` (projected / semi-joined attribute names), ``$OPANDVAL`` ("greater than 51.75"),
``$NESTED`` (template 15: the tokens after it read the sub-query's conditions; prints nothing),
``$GROUPINGSETS`` ("for each A, for each B": one group per attribute, the grouping sets questions) and
``$REPORTATTR`` (report sentence only).

Which reserved words a phrasing needs or may use is its question family's business (NLRequirements);
rendering.py fills a parsed template from the facts of the question's own query (query_facts.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional

from .types import NLTemplateError

SEED_FILE = "seeds/nl_templates.csv"
TREB_SEED_FILE = "seeds/nl_templates_treb.csv"  # the phrasings of the TReB families (suite treb)
BEYOND_SEED_FILE = "seeds/nl_templates_beyond.csv"  # the phrasings of the two-table and OLAP families (suite beyond)
MEANINGS_FILE = "seeds/nl_table_meanings.csv"

RESERVED = ("EXPRSUP", "EXPR", "GROUPBY", "TOPK", "ORDERBYDESC", "OPPATTR", "OPANDVAL", "NESTED", "REPORTATTR",
            "GROUPINGSETS")


@dataclass(frozen=True)
class NLRequirements:
    """What a question family asks of its NL phrasings (rows of seeds/nl_templates.csv).

    `template_id`: the seed's template_id column holding the family's phrasings; `required`: groups of
    reserved words, each phrasing uses at least one word of every group; `allowed`: the reserved words a
    phrasing may use (any other is an error, so a phrasing cannot print what its question does not have).
    """

    template_id: int
    required: tuple[tuple[str, ...], ...] = ()
    allowed: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Elem:
    kind: str  # "word" | "keep" | "attr" | "res"
    text: str


@dataclass(frozen=True)
class Token:
    elems: tuple[Elem, ...]
    links: tuple[str, ...]  # len(elems) - 1 links: "_", "__", "=="

    @property
    def vars(self) -> list[int]:
        return [i for i, e in enumerate(self.elems) if e.kind in ("attr", "res")]


@dataclass(frozen=True)
class ParsedTemplate:
    template_id: int
    phrasing: int
    text: str
    tokens: tuple[Token, ...]
    attributes: frozenset[str]
    reserved: frozenset[str]


_WORD_RE = re.compile(r"[^_=$\s]+?(?=__|_|==|\$|$)")


def seed_row_error(problem: str, row: dict, file: str = SEED_FILE) -> NLTemplateError:
    loc = ", ".join(f"{k}={row[k]!r}" for k in ("domain", "template_name", "template_id", "phrasing") if k in row)
    line = f", line {row['line']}" if row.get("line") is not None else ""
    return NLTemplateError(f"{file}: row ({loc}{line}): {problem}")


def parse_template(text: str, attribute_names: Iterable[str], template_id: int, phrasing: int,
                   row: Optional[dict] = None, file: str = SEED_FILE,
                   requirements: Optional[NLRequirements] = None) -> ParsedTemplate:
    """Parse one phrasing; with `requirements` (its family's), check the reserved words it uses."""
    row = row or {"template_id": template_id, "phrasing": phrasing}
    if text.strip().startswith("$"):
        raise seed_row_error("a template must not start with a placeholder", row, file)
    names = sorted(set(attribute_names) | set(RESERVED), key=len, reverse=True)
    tokens = []
    attrs: set[str] = set()
    reserved: set[str] = set()
    for raw in text.split():
        elems: list[Elem] = []
        links: list[str] = []
        pos = 0
        while pos < len(raw):
            if raw.startswith("((", pos):
                end = raw.find("))", pos)
                if end < 0:
                    raise seed_row_error(f"unclosed '((' in {raw!r}", row, file)
                elems.append(Elem("keep", raw[pos + 2:end]))
                pos = end + 2
            elif raw[pos] == "$":
                found = None
                for n in names:
                    if raw.startswith(n, pos + 1):
                        after = raw[pos + 1 + len(n):pos + 2 + len(n)]
                        if not after or not (after.isalnum()):
                            found = n
                            break
                if found is None:
                    m = re.match(r"[A-Za-z0-9]+", raw[pos + 1:])
                    bad = m.group(0) if m else raw[pos + 1:]
                    if bad.isupper():
                        raise seed_row_error(f"unknown reserved word ${bad} in {raw!r}", row, file)
                    raise seed_row_error(f"attribute ${bad} in {raw!r} is not an attribute of this domain", row, file)
                if found in RESERVED:
                    elems.append(Elem("res", found))
                    reserved.add(found)
                else:
                    elems.append(Elem("attr", found))
                    attrs.add(found)
                pos += 1 + len(found)
            else:
                m = _WORD_RE.match(raw, pos)
                if not m or not m.group(0):
                    raise seed_row_error(f"cannot read {raw!r} at character {pos}", row, file)
                elems.append(Elem("word", m.group(0)))
                pos = m.end()
            if pos < len(raw):
                for link in ("__", "==", "_"):
                    if raw.startswith(link, pos):
                        links.append(link)
                        pos += len(link)
                        break
                else:
                    if raw[pos] not in "$(":
                        raise seed_row_error(f"cannot read {raw!r} at character {pos}", row, file)
                    links.append("")  # adjacent, e.g. "word$X" (treated as '_')
                if pos >= len(raw):
                    raise seed_row_error(f"dangling link at the end of {raw!r}", row, file)
        tokens.append(Token(tuple(elems), tuple(links)))
    if requirements is not None:
        for r in sorted(reserved - requirements.allowed):
            raise seed_row_error(f"${r} is not allowed in template {template_id}", row, file)
        for group in requirements.required:
            if not reserved.intersection(group):
                raise seed_row_error(f"template {template_id} needs ${' or $'.join(group)}", row, file)
    return ParsedTemplate(template_id, phrasing, text, tuple(tokens), frozenset(attrs), frozenset(reserved))
