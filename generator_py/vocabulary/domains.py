"""Domain vocabularies read from the seeds: attributes, value trees and numeric ranges, validated."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Optional

import pandas as pd

from ..core.errors import SeedError

IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


@dataclass
class ValueNode:
    label: str
    position: int
    children: list["ValueNode"] = field(default_factory=list)


@dataclass
class Code:
    """An independent attribute (one level) or a hierarchical group of attributes."""

    code: str
    kind: str  # independent | hierarchical
    attribute_names: list[str]  # one per level, outer to inner
    roots: list[ValueNode]

    @property
    def n_levels(self) -> int:
        return len(self.attribute_names)


AGG_FUNCTIONS = ("sum", "avg", "min", "max")


@dataclass(frozen=True)
class ValueRange:
    low: float
    high: float
    is_integer: bool
    # what the measure admits: sums of counts, amounts and durations; no sum of temperatures or scores
    aggregations: tuple[str, ...] = AGG_FUNCTIONS


@dataclass
class Domain:
    name: str
    codes: dict[str, Code]
    ranges: dict[str, ValueRange]
    # attributes whose values split the measure into parts that do not add up (imports vs exports)
    non_additive: set[str] = field(default_factory=set)
    # shortcut -> [(((attribute, label), ...), range)]: narrower ranges where header labels match, file order
    conditional_ranges: dict[str, list] = field(default_factory=dict)


GT_DELIMITERS = ("{", "}", "|")


def rows_with_lines(df: pd.DataFrame) -> Iterable[tuple[int, dict]]:
    """Seed rows with their CSV line numbers (line 1 is the header)."""
    for i, rec in enumerate(df.to_dict("records")):
        yield i + 2, {k: (None if v is None or (isinstance(v, float) and pd.isna(v)) else str(v).strip()) for k, v in rec.items()}


def parse_range(text: Optional[str], seed: str, line: int, context: str, what: str) -> ValueRange:
    """`[m,M]` -> ValueRange; a decimal point in either bound makes values two-decimal reals."""
    m = re.fullmatch(r"\s*\[\s*([^,\]]+)\s*,\s*([^,\]]+)\s*\]\s*", text or "")
    if not m:
        raise SeedError(seed, line, f"{what} {text!r} is not a range of two numbers like [10,999]", context)
    return make_range(m.group(1), m.group(2), seed, line, context, what)


def make_range(low: Optional[str], high: Optional[str], seed: str, line: int, context: str, what: str) -> ValueRange:
    for bound in (low, high):
        if bound is None or not NUMBER.match(bound.strip()):
            raise SeedError(seed, line, f"{what}: bound {bound!r} is not a number", context)
    lo, hi = float(low), float(high)
    if lo >= hi:
        raise SeedError(seed, line, f"{what}: minimum {low} is not below maximum {high}", context)
    return ValueRange(lo, hi, "." not in low and "." not in high)


def parse_aggregations(text: Optional[str], seed: str, line: int, context: str) -> tuple[str, ...]:
    """`avg;min;max` -> the aggregations a measure admits, in AGG_FUNCTIONS order; blank admits all four."""
    if not text:
        return AGG_FUNCTIONS
    names = [a.strip() for a in text.split(";") if a.strip()]
    bad = [a for a in names if a not in AGG_FUNCTIONS]
    if bad or len(names) < 2:
        raise SeedError(seed, line, f"aggregations {text!r} is not a ;-list of at least two of {', '.join(AGG_FUNCTIONS)}", context)
    return tuple(a for a in AGG_FUNCTIONS if a in names)


def _level(text: Optional[str], seed: str, line: int, context: str, name: str = "level") -> int:
    if text is None or not text.isdigit() or int(text) < 1:
        raise SeedError(seed, line, f"{name} {text!r} is not a positive integer", context)
    return int(text)


def load_domains(attributes: pd.DataFrame, values: pd.DataFrame, ranges: pd.DataFrame) -> dict[str, Domain]:
    domains: dict[str, Domain] = {}
    levels: dict[tuple[str, str], dict[int, str]] = {}
    kinds: dict[tuple[str, str], str] = {}
    non_additive: dict[str, set[str]] = {}
    for line, r in rows_with_lines(attributes):
        ctx = f"domain={r['domain']}, code={r['code']}"
        if not r["domain"] or not r["code"] or not IDENTIFIER.match(r["code"]):
            raise SeedError("domain_attributes", line, f"code {r['code']!r} is not an identifier", ctx)
        if r["kind"] not in ("independent", "hierarchical"):
            raise SeedError("domain_attributes", line, f"kind {r['kind']!r} is not independent or hierarchical", ctx)
        if not r["attribute_name"] or not IDENTIFIER.match(r["attribute_name"]):
            raise SeedError("domain_attributes", line, f"attribute_name {r['attribute_name']!r} is not an identifier", ctx)
        key = (r["domain"], r["code"])
        lvl = _level(r["level"], "domain_attributes", line, ctx)
        if kinds.setdefault(key, r["kind"]) != r["kind"]:
            raise SeedError("domain_attributes", line, f"code {r['code']!r} is declared both independent and hierarchical", ctx)
        if lvl in levels.setdefault(key, {}):
            raise SeedError("domain_attributes", line, f"level {lvl} of code {r['code']!r} is declared twice", ctx)
        if r["kind"] == "independent" and lvl != 1:
            raise SeedError("domain_attributes", line, "an independent attribute has exactly one level (1)", ctx)
        names = {n for (d, _), lv in levels.items() if d == r["domain"] for n in lv.values()}
        if r["attribute_name"] in names:
            raise SeedError("domain_attributes", line, f"attribute_name {r['attribute_name']!r} is used twice in domain {r['domain']!r}", ctx)
        levels[key][lvl] = r["attribute_name"]
        additive = (r.get("additive") or "yes").lower()
        if additive not in ("yes", "no"):
            raise SeedError("domain_attributes", line, f"additive {r.get('additive')!r} is not yes or no (blank: yes)", ctx)
        if additive == "no":
            non_additive.setdefault(r["domain"], set()).add(r["attribute_name"])
    for (dom, code), lv in levels.items():
        if sorted(lv) != list(range(1, len(lv) + 1)):
            raise SeedError("domain_attributes", None, f"levels of code {code!r} are {sorted(lv)}, not 1..n", f"domain={dom}")
        domains.setdefault(dom, Domain(dom, {}, {}, non_additive.get(dom, set()))).codes[code] = Code(code, kinds[(dom, code)], [lv[i] for i in sorted(lv)], [])

    nodes: dict[tuple[str, str, int, str], ValueNode] = {}
    # Parents before children whatever the file order, so a child may be listed before its parent.
    for line, r in sorted(rows_with_lines(values), key=lambda lr: _level_or_zero(lr[1]["level"])):
        ctx = f"domain={r['domain']}, code={r['code']}, label={r['label']}"
        dom = domains.get(r["domain"])
        code = dom.codes.get(r["code"]) if dom else None
        if code is None:
            raise SeedError("domain_values", line, f"code {r['code']!r} is not declared for domain {r['domain']!r} in domain_attributes", ctx)
        lvl = _level(r["level"], "domain_values", line, ctx)
        if lvl > code.n_levels:
            raise SeedError("domain_values", line, f"level {lvl} exceeds the {code.n_levels} level(s) of code {code.code!r}", ctx)
        pos = _level(r["position"], "domain_values", line, ctx, "position")
        # `{`, `}` and `|` delimit values and rows of the gt string: a label holding one would break it
        if not r["label"] or any(ch in r["label"] for ch in GT_DELIMITERS):
            raise SeedError("domain_values", line,
                            f"label {r['label']!r} is empty or contains one of {' '.join(GT_DELIMITERS)} (gt delimiters)", ctx)
        key = (r["domain"], r["code"], lvl, r["label"])
        if key in nodes:
            raise SeedError("domain_values", line, f"duplicate value {r['label']!r} at level {lvl} of code {code.code!r}", ctx)
        node = ValueNode(r["label"], pos)
        if lvl == 1:
            if r["parent_label"]:
                raise SeedError("domain_values", line, "a level-1 value has no parent_label", ctx)
            code.roots.append(node)
        else:
            parent = nodes.get((r["domain"], r["code"], lvl - 1, r["parent_label"] or ""))
            if parent is None:
                raise SeedError("domain_values", line, f"parent_label {r['parent_label']!r} is not a level-{lvl - 1} value of code {code.code!r}", ctx)
            parent.children.append(node)
        nodes[key] = node
    for dom in domains.values():
        for code in dom.codes.values():
            if not code.roots:
                raise SeedError("domain_values", None, f"code {code.code!r} has no values", f"domain={dom.name}")
            _sort_tree(code.roots)

    labels = domain_labels(domains)
    conditional = []
    for line, r in rows_with_lines(ranges):
        ctx = f"domain={r['domain']}, shortcut={r['shortcut']}"
        if r["domain"] not in domains:
            raise SeedError("domain_value_ranges", line, f"domain {r['domain']!r} has no attributes in domain_attributes", ctx)
        rng = make_range(r["min"], r["max"], "domain_value_ranges", line, ctx, "value range")
        aggs = parse_aggregations(r.get("aggregations"), "domain_value_ranges", line, ctx)
        dom = domains[r["domain"]]
        if not r.get("condition"):
            if r["shortcut"] in dom.ranges:
                raise SeedError("domain_value_ranges", line, f"shortcut {r['shortcut']!r} has two unconditional ranges", ctx)
            dom.ranges[r["shortcut"]] = ValueRange(rng.low, rng.high, rng.is_integer, aggs)
        else:
            conditional.append((line, r, ctx, rng))
    for line, r, ctx, rng in conditional:
        dom = domains[r["domain"]]
        base = dom.ranges.get(r["shortcut"])
        if base is None:
            raise SeedError("domain_value_ranges", line, f"conditional range for shortcut {r['shortcut']!r}, which has no unconditional range", ctx)
        if rng.is_integer != base.is_integer:
            raise SeedError("domain_value_ranges", line, "a conditional range must be integer or decimal like its shortcut's range", ctx)
        if r.get("aggregations"):
            raise SeedError("domain_value_ranges", line, "aggregations belong to the shortcut's unconditional range", ctx)
        cond = parse_condition(r["condition"], dom, labels, line, ctx)
        dom.conditional_ranges.setdefault(r["shortcut"], []).append((cond, ValueRange(rng.low, rng.high, rng.is_integer, base.aggregations)))
    return domains


def domain_labels(domains: dict[str, Domain]) -> dict[tuple[str, str], set[str]]:
    """(domain, attribute name) -> the attribute's labels, for conditions."""
    out: dict[tuple[str, str], set[str]] = {}

    def walk(dom: str, code: Code, nodes: list[ValueNode], level: int) -> None:
        for n in nodes:
            out.setdefault((dom, code.attribute_names[level]), set()).add(n.label)
            walk(dom, code, n.children, level + 1)

    for dom in domains.values():
        for code in dom.codes.values():
            walk(dom.name, code, code.roots, 0)
    return out


def parse_condition(text: str, dom: Domain, labels: dict, line: int, ctx: str,
                    seed: str = "domain_value_ranges") -> tuple[tuple[str, str], ...]:
    """`Country=Singapore;Month=July` -> ((attribute, label), ...): all must hold for the row to apply."""
    out = []
    for part in text.split(";"):
        attr, eq, label = part.partition("=")
        attr, label = attr.strip(), label.strip()
        if not eq or (dom.name, attr) not in labels:
            raise SeedError(seed, line, f"condition {part.strip()!r} is not Attribute=label with an attribute of domain {dom.name!r}", ctx)
        if label not in labels[(dom.name, attr)]:
            raise SeedError(seed, line, f"condition {part.strip()!r}: {label!r} is not a value of {attr}", ctx)
        out.append((attr, label))
    return tuple(out)


def _level_or_zero(text: Optional[str]) -> int:
    return int(text) if text and text.isdigit() else 0


def _sort_tree(nodes: list[ValueNode]) -> None:
    nodes.sort(key=lambda n: n.position)
    for n in nodes:
        _sort_tree(n.children)
