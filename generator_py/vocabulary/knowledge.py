"""What the seeds say about a domain beyond one table, for the question families that reach past the table
(TReB's hallucination, fuzzy query, semantic selection, plausibility and unit instructions): every label of
each attribute with its ancestors, the groupings a question may name instead of listing labels, and the
measure's unit and declared range.

Groupings come from two places: the vocabulary's own hierarchy (a seed row of `value_groupings` naming a
`parent` label: its members are that label's descendants at the attribute's level, "the Norwegian cities")
and declared sets (a row listing `members`, "the northern summer months"). Either way a grouping's
`phrase` is said where one of its labels would be said in a question, so it is written to fit that slot
(after the attribute's value_phrase words, if it has any).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pandas as pd

from ..core.errors import SeedError
from .domains import Code, Domain, ValueNode, rows_with_lines

GROUPINGS_SEED = "value_groupings"
UNITS_SEED = "measure_units"


@dataclass(frozen=True)
class Grouping:
    """A set of labels of one attribute a question names by a phrase (`members` in vocabulary order)."""

    attribute: str
    phrase: str
    members: tuple[str, ...]
    parent: Optional[str] = None  # the vocabulary label whose descendants the members are; None: declared


@dataclass(frozen=True)
class DomainKnowledge:
    """The domain facts a question family may use beyond its table (see the module docstring).

    `ancestors`: attribute name -> label -> the labels above it in its hierarchy (outer to inner; empty at
    level 1), every label of the vocabulary in vocabulary order; `groupings`: attribute name -> its
    groupings; `unit`: what a number of the measure is written with (`degrees Celsius`), None when no seed
    row gives one; `value_range`: the measure's declared (low, high); `value_is_integer`: its values are
    whole numbers."""

    ancestors: dict
    groupings: dict
    unit: Optional[str]
    value_range: tuple[float, float]
    value_is_integer: bool

    def labels(self, attribute: str) -> tuple[str, ...]:
        return tuple(self.ancestors.get(attribute, ()))


def _walk(code: Code, nodes: list[ValueNode], level: int, above: tuple, out: dict) -> None:
    for n in nodes:
        out.setdefault(code.attribute_names[level], {})[n.label] = above
        _walk(code, n.children, level + 1, above + (n.label,), out)


def label_ancestors(domain: Domain) -> dict[str, dict[str, tuple[str, ...]]]:
    """attribute name -> label -> its ancestors, in vocabulary order."""
    out: dict = {}
    for code in domain.codes.values():
        _walk(code, code.roots, 0, (), out)
    return out


def _level_of(domain: Domain, attribute: str) -> tuple[Optional[Code], int]:
    for code in domain.codes.values():
        if attribute in code.attribute_names:
            return code, code.attribute_names.index(attribute)
    return None, -1


def load_groupings(groupings: pd.DataFrame, domains: dict[str, Domain]) -> dict[str, dict[str, tuple[Grouping, ...]]]:
    """domain -> attribute name -> its groupings, from the `value_groupings` seed, checked against the vocabulary:
    a known domain and attribute, a phrase, and either `members` (a ;-list of two or more of the attribute's
    labels) or `parent` (a label above the attribute's level in its hierarchy, with two or more descendants at
    it). A bad row is a SeedError naming the file, the line and the problem."""
    out: dict[str, dict[str, list[Grouping]]] = {}
    seen: set = set()
    for line, r in rows_with_lines(groupings):
        ctx = f"domain={r['domain']}, attribute={r['attribute']}, phrase={r['phrase']}"
        dom = domains.get(r["domain"] or "")
        if dom is None:
            raise SeedError(GROUPINGS_SEED, line, f"domain {r['domain']!r} has no vocabulary in domain_attributes", ctx)
        code, level = _level_of(dom, r["attribute"] or "")
        if code is None:
            raise SeedError(GROUPINGS_SEED, line, f"attribute {r['attribute']!r} is no attribute of domain {dom.name!r}", ctx)
        phrase = " ".join((r["phrase"] or "").split())
        if not phrase or any(ch in phrase for ch in "{}|$_="):
            raise SeedError(GROUPINGS_SEED, line, f"phrase {r['phrase']!r} must be plain words (no {{ }} | $ _ =)", ctx)
        if (dom.name, r["attribute"], phrase) in seen:
            raise SeedError(GROUPINGS_SEED, line, "the same phrase is declared twice for this attribute", ctx)
        seen.add((dom.name, r["attribute"], phrase))
        ancestors = label_ancestors(dom)[r["attribute"]]
        if bool(r["members"]) == bool(r["parent"]):
            raise SeedError(GROUPINGS_SEED, line, "give either members (a ;-list of labels) or parent (a label "
                                                  "whose descendants are the members), not both, not neither", ctx)
        if r["members"]:
            members = [m.strip() for m in r["members"].split(";") if m.strip()]
            unknown = [m for m in members if m not in ancestors]
            if unknown:
                raise SeedError(GROUPINGS_SEED, line, f"member(s) {unknown} are no labels of {r['attribute']}", ctx)
            parent = None
        else:
            parent = r["parent"]
            if level == 0 or not any(parent in a for a in ancestors.values()):
                raise SeedError(GROUPINGS_SEED, line, f"parent {parent!r} is no label above {r['attribute']} in its "
                                                      f"hierarchy ({code.code})", ctx)
            members = [label for label, a in ancestors.items() if parent in a]
        if len(set(members)) < 2:
            raise SeedError(GROUPINGS_SEED, line, "a grouping needs two or more distinct members", ctx)
        ordered = tuple(label for label in ancestors if label in set(members))
        out.setdefault(dom.name, {}).setdefault(r["attribute"], []).append(
            Grouping(r["attribute"], phrase, ordered, parent))
    return {d: {a: tuple(gs) for a, gs in by_attr.items()} for d, by_attr in out.items()}


def load_units(units: pd.DataFrame, templates: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """(domain, template_name) -> the unit of its measure, from the `measure_units` seed (each template at
    most once, a known template, a unit of plain words)."""
    out: dict[tuple[str, str], str] = {}
    for line, r in rows_with_lines(units):
        key = (r["domain"] or "", r["template_name"] or "")
        ctx = f"domain={key[0]}, template_name={key[1]}"
        if key not in templates:
            raise SeedError(UNITS_SEED, line, "no such table template in table_templates", ctx)
        if key in out:
            raise SeedError(UNITS_SEED, line, "the template's unit is given twice", ctx)
        unit = " ".join((r["unit"] or "").split())
        if not unit or any(ch in unit for ch in "{}|$_=") or any(ch.isdigit() for ch in unit):
            raise SeedError(UNITS_SEED, line, f"unit {r['unit']!r} must be words without digits or {{ }} | $ _ =", ctx)
        out[key] = unit
    return out


def domain_knowledge(domain: Domain, groupings: dict, unit: Optional[str], low: float, high: float,
                     is_integer: bool) -> DomainKnowledge:
    return DomainKnowledge(label_ancestors(domain), groupings.get(domain.name, {}), unit, (low, high), is_integer)
