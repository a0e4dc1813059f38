"""The value model of each measure, read from seed domain_value_effects: a baseline, effects of header
labels, trends over a numeric attribute and noise with a relative spread.

A cell's expected value is

    (baseline + sum of matching shifts + sum of trend_shift * (year - mid year))
    * product of matching scales * product of (1 + trend_scale) ** (year - mid year)

where an effect matches when every `Attribute=label` of its condition is a header label of the cell
(several matching effects all apply, so an interaction is one more row). An attribute the table does
not show contributes nothing: effects are deviations from an average over its values, and the trends
count from the middle of the attribute's values. The drawn value adds normal noise of standard
deviation `noise * max(|expected|, width of the measure's range / 10)` (the floor keeps a value near
zero varying) and is clipped to the cell's range (domain_value_ranges)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pandas as pd

from ..core.errors import SeedError
from .domains import NUMBER, Domain, ValueRange, domain_labels, parse_condition, rows_with_lines

SEED = "domain_value_effects"
EFFECTS = ("baseline", "shift", "scale", "trend_shift", "trend_scale", "noise")
# a measure without rows: the middle of its range, no effect, a wide spread
DEFAULT_NOISE = 0.25

Condition = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ValueModel:
    baseline: float
    shifts: tuple[tuple[Condition, float], ...] = ()
    scales: tuple[tuple[Condition, float], ...] = ()
    # (attribute, amount per unit, mid value of the attribute's labels)
    trend_shifts: tuple[tuple[str, float, float], ...] = ()
    trend_scales: tuple[tuple[str, float, float], ...] = ()
    noise: float = DEFAULT_NOISE


def default_model(value_range: ValueRange) -> ValueModel:
    return ValueModel((value_range.low + value_range.high) / 2)


def load_value_models(effects: pd.DataFrame, domains: dict[str, Domain]) -> dict[tuple[str, str], ValueModel]:
    """(domain, shortcut) -> ValueModel for every measure with rows; raises SeedError naming file and line."""
    labels = domain_labels(domains)
    rows: dict[tuple[str, str], list] = {}
    seen: set[tuple] = set()
    for line, r in rows_with_lines(effects):
        ctx = f"domain={r['domain']}, shortcut={r['shortcut']}, effect={r['effect']}, condition={r.get('condition') or ''}"
        dom = domains.get(r["domain"] or "")
        if dom is None:
            raise SeedError(SEED, line, f"domain {r['domain']!r} has no attributes in domain_attributes", ctx)
        rng = dom.ranges.get(r["shortcut"] or "")
        if rng is None:
            raise SeedError(SEED, line, f"shortcut {r['shortcut']!r} has no unconditional range in domain_value_ranges "
                                        f"({', '.join(sorted(dom.ranges))})", ctx)
        effect = r["effect"]
        if effect not in EFFECTS:
            raise SeedError(SEED, line, f"effect {effect!r} is not one of {', '.join(EFFECTS)}", ctx)
        amount_text = r.get("amount")
        if not amount_text or not NUMBER.match(amount_text):
            raise SeedError(SEED, line, f"amount {amount_text!r} is not a number", ctx)
        amount = float(amount_text)
        cond_text = r.get("condition")
        if effect in ("baseline", "noise"):
            if cond_text:
                raise SeedError(SEED, line, f"a {effect} row has no condition", ctx)
            cond = ()
        elif effect in ("shift", "scale"):
            if not cond_text:
                raise SeedError(SEED, line, f"a {effect} row needs a condition Attribute=label[;Attribute=label]", ctx)
            cond = tuple(sorted(parse_condition(cond_text, dom, labels, line, ctx, SEED)))
        else:
            cond = (_trend_attribute(cond_text, dom, labels, line, ctx),)
        key = (r["domain"], r["shortcut"], effect, cond)
        if key in seen:
            raise SeedError(SEED, line, f"{effect} with this condition is declared twice for {r['shortcut']!r}", ctx)
        seen.add(key)
        if effect == "baseline" and not rng.low <= amount <= rng.high:
            raise SeedError(SEED, line, f"baseline {amount_text} is outside the measure's range [{rng.low}, {rng.high}]", ctx)
        if effect == "scale" and amount <= 0:
            raise SeedError(SEED, line, f"scale {amount_text} is not a positive factor", ctx)
        if effect == "trend_scale" and amount <= -1:
            raise SeedError(SEED, line, f"trend_scale {amount_text} is not a relative change above -1 per unit", ctx)
        if effect == "noise" and not 0 <= amount <= 1:
            raise SeedError(SEED, line, f"noise {amount_text} is not a relative spread between 0 and 1", ctx)
        rows.setdefault((r["domain"], r["shortcut"]), []).append((line, effect, cond, amount))
    models = {}
    for (domain, shortcut), items in rows.items():
        baseline = [a for _, e, _, a in items if e == "baseline"]
        if not baseline:
            raise SeedError(SEED, items[0][0], f"measure {shortcut!r} has effects but no baseline row",
                            f"domain={domain}, shortcut={shortcut}")
        mids = {a: _mid(labels[(domain, a)]) for _, e, c, _ in items if e.startswith("trend") for a in c}
        models[(domain, shortcut)] = ValueModel(
            baseline=baseline[0],
            shifts=tuple((c, a) for _, e, c, a in items if e == "shift"),
            scales=tuple((c, a) for _, e, c, a in items if e == "scale"),
            trend_shifts=tuple((c[0], a, mids[c[0]]) for _, e, c, a in items if e == "trend_shift"),
            trend_scales=tuple((c[0], a, mids[c[0]]) for _, e, c, a in items if e == "trend_scale"),
            noise=next((a for _, e, _, a in items if e == "noise"), DEFAULT_NOISE))
    return models


def model_for(models: dict[tuple[str, str], ValueModel], domain: str, values: str,
              value_range: ValueRange) -> ValueModel:
    """A template's model: its measure's rows, else the default one (also for a literal [m,M] range)."""
    return models.get((domain, values)) or default_model(value_range)


def _trend_attribute(text: Optional[str], dom: Domain, labels: dict, line: int, ctx: str) -> str:
    attr = (text or "").strip()
    if (dom.name, attr) not in labels:
        raise SeedError(SEED, line, f"a trend's condition {text!r} is not an attribute of domain {dom.name!r}", ctx)
    bad = sorted(x for x in labels[(dom.name, attr)] if not NUMBER.match(x))
    if bad:
        raise SeedError(SEED, line, f"a trend needs an attribute with numeric labels; {attr} has {bad[0]!r}", ctx)
    return attr


def _mid(labels: set[str]) -> float:
    numbers = sorted(float(x) for x in labels)
    return (numbers[0] + numbers[-1]) / 2
