"""Statements about how a measure behaves, read from seed domain_value_expectations, e.g.
`temperature: Snowy < Clear` or `temperature: Brazil;July < Brazil;January`: on average over the built
tables, the cells matching the left side hold a smaller value than the cells matching the right side.

A side is a `;`-list of terms that must all hold; a term is a label (the attribute it belongs to is
found in the domain's vocabulary, which must name only one) or `Attribute=label`. The data test
tests/data/assert_value_expectations_hold.sql checks each statement whose two sides both match cells."""
from __future__ import annotations

import re

import pandas as pd

from ..core.errors import SeedError
from .domains import Domain, domain_labels, rows_with_lines

SEED = "domain_value_expectations"
STATEMENT = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s*(.+?)\s*([<>])\s*(.+?)\s*$")
COLUMNS = ["statement_id", "domain", "shortcut", "statement", "side", "attribute", "label", "n_terms"]


def load_value_expectations(df: pd.DataFrame, domains: dict[str, Domain]) -> pd.DataFrame:
    """One row per term of each side (`side` lower or higher); raises SeedError naming file and line."""
    labels = domain_labels(domains)
    out, seen = [], set()
    for line, r in rows_with_lines(df):
        text = r.get("statement") or ""
        ctx = f"domain={r['domain']}, statement={text}"
        dom = domains.get(r["domain"] or "")
        if dom is None:
            raise SeedError(SEED, line, f"domain {r['domain']!r} has no attributes in domain_attributes", ctx)
        m = STATEMENT.match(text)
        if not m:
            raise SeedError(SEED, line, f"statement {text!r} is not `measure: side < side` (or >)", ctx)
        shortcut, left, op, right = m.groups()
        if shortcut not in dom.ranges:
            raise SeedError(SEED, line, f"measure {shortcut!r} has no range in domain_value_ranges "
                                        f"({', '.join(sorted(dom.ranges))})", ctx)
        lower, higher = (left, right) if op == "<" else (right, left)
        sides = {"lower": _terms(lower, dom, labels, line, ctx), "higher": _terms(higher, dom, labels, line, ctx)}
        if sides["lower"] == sides["higher"]:
            raise SeedError(SEED, line, "both sides name the same cells", ctx)
        key = (r["domain"], shortcut, tuple(sides["lower"]), tuple(sides["higher"]))
        if key in seen:
            raise SeedError(SEED, line, "the statement is declared twice", ctx)
        seen.add(key)
        for side, terms in sides.items():
            out.extend([line, r["domain"], shortcut, f"{r['domain']}: {text.strip()}", side, a, v, len(terms)]
                       for a, v in terms)
    return pd.DataFrame(out, columns=COLUMNS)


def _terms(text: str, dom: Domain, labels: dict, line: int, ctx: str) -> list[tuple[str, str]]:
    terms = []
    for part in text.split(";"):
        part = part.strip()
        attr, eq, label = (x.strip() for x in part.partition("="))
        if eq:
            if (dom.name, attr) not in labels or label not in labels[(dom.name, attr)]:
                raise SeedError(SEED, line, f"term {part!r}: {label!r} is not a value of an attribute {attr!r} of domain {dom.name!r}", ctx)
            terms.append((attr, label))
            continue
        owners = sorted(a for (d, a), values in labels.items() if d == dom.name and part in values)
        if not owners:
            raise SeedError(SEED, line, f"term {part!r} is not a value of any attribute of domain {dom.name!r}", ctx)
        if len(owners) > 1:
            raise SeedError(SEED, line, f"term {part!r} is a value of {', '.join(owners)}: write Attribute={part}", ctx)
        terms.append((owners[0], part))
    if len({a for a, _ in terms}) != len(terms):
        raise SeedError(SEED, line, f"side {text.strip()!r} names one attribute twice", ctx)
    return sorted(terms)
