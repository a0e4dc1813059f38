"""Generic table templates and their expansion into individual templates (variants)."""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass
from typing import Optional

import pandas as pd

from ..core.errors import SeedError
from .domains import AGG_FUNCTIONS, Domain, ValueRange, parse_range, rows_with_lines
from .value_model import ValueModel, default_model, model_for
OPTIONS = ("replica", "shuffle", "col_row_levels", "col_row_name_pos", "col_row_agg_pos", "row_format")
SHUFFLES = ("none", "rows", "cols", "rowscols", "all")
NAME_POSITIONS = ("none_none", "top_left", "none_left")
COL_AGG = ("none", "left", "right")
ROW_AGG = ("none", "top", "bottom")
ROW_FORMATS = ("new", "indent")


@dataclass(frozen=True)
class Sample:
    """`[m,M]`: n drawn in [m, M] consecutive values per level; `[0]` (all_values): every value."""

    low: int
    high: int
    all_values: bool


@dataclass(frozen=True)
class TableTemplate:
    domain: str
    template_name: str
    value_name: str
    value_range: ValueRange
    row_codes: tuple[str, ...]
    row_samples: tuple[Sample, ...]
    col_codes: tuple[str, ...]
    col_samples: tuple[Sample, ...]
    agg_name: str
    agg_fun: str
    line: int
    # narrower ranges where a cell's header labels match: (((attribute, label), ...), ValueRange)
    conditional_ranges: tuple = ()
    # how the measure's values behave (seed domain_value_effects); None: the default model of value_range
    value_model: Optional[ValueModel] = None

    @property
    def model(self) -> ValueModel:
        return self.value_model or default_model(self.value_range)


@dataclass(frozen=True)
class Variant:
    """One individual template: a combination of the generic options for one table template."""

    domain: str
    template_name: str
    variant_id: int
    replicas: int
    shuffle: str
    col_depth: int
    row_depth: int
    name_pos: str
    col_agg_pos: str
    row_agg_pos: str
    row_format: str

    def table_id(self, replica: int) -> str:
        return f"syn--{self.domain}--{self.template_name}--v{self.variant_id:04d}--r{replica}"


def parse_sample(text: str, line: int, ctx: str) -> Sample:
    if re.fullmatch(r"\s*\[\s*0\s*\]\s*", text):
        return Sample(0, 0, True)
    m = re.fullmatch(r"\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]\s*", text)
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise SeedError("table_templates", line, f"sample {text!r} is not [0] or a range [m,M] of two integers with 1 <= m <= M", ctx)
    return Sample(int(m.group(1)), int(m.group(2)), False)


def load_templates(df: pd.DataFrame, domains: dict[str, Domain],
                   value_models: Optional[dict[tuple[str, str], ValueModel]] = None) -> list[TableTemplate]:
    templates = []
    seen = set()
    for line, r in rows_with_lines(df):
        ctx = f"domain={r['domain']}, template_name={r['template_name']}"
        dom = domains.get(r["domain"])
        if dom is None:
            raise SeedError("table_templates", line, f"domain {r['domain']!r} has no vocabulary in domain_attributes", ctx)
        if not r["template_name"] or not re.fullmatch(r"[a-z0-9_]+", r["template_name"]):
            raise SeedError("table_templates", line, f"template_name {r['template_name']!r} must be lower-case letters, digits and _", ctx)
        if (r["domain"], r["template_name"]) in seen:
            raise SeedError("table_templates", line, "duplicate template_name in this domain", ctx)
        seen.add((r["domain"], r["template_name"]))
        values = r["values"] or ""
        if values.startswith("["):
            rng = parse_range(values, "table_templates", line, ctx, "values")
        elif values in dom.ranges:
            rng = dom.ranges[values]
        else:
            raise SeedError("table_templates", line, f"values {values!r} is neither a range [m,M] nor a shortcut of domain_value_ranges ({', '.join(sorted(dom.ranges)) or 'none defined'})", ctx)
        codes = {axis: tuple(c.strip() for c in (r[f"{axis}_codes"] or "").split(";") if c.strip()) for axis in ("row", "col")}
        for axis in ("row", "col"):
            if not codes[axis]:
                raise SeedError("table_templates", line, f"{axis}_codes is empty", ctx)
            for c in codes[axis]:
                if c not in dom.codes:
                    raise SeedError("table_templates", line, f"unknown attribute code {c!r} in {axis}_codes; domain {r['domain']!r} has {', '.join(sorted(dom.codes))}", ctx)
            if len(set(codes[axis])) != len(codes[axis]):
                raise SeedError("table_templates", line, f"{axis}_codes repeats a code", ctx)
        both = set(codes["row"]) & set(codes["col"])
        if both:
            raise SeedError("table_templates", line, f"code(s) {', '.join(sorted(both))} placed both in rows and in columns (a hierarchy cannot be split between rows and columns)", ctx)
        axes = {}
        for axis in ("row", "col"):
            samples_text = [s for s in (r[f"{axis}_samples"] or "").split(";") if s.strip()]
            if len(samples_text) != len(codes[axis]):
                raise SeedError("table_templates", line, f"{axis}_samples has {len(samples_text)} interval(s) for {len(codes[axis])} code(s)", ctx)
            axes[axis] = (codes[axis], tuple(parse_sample(s, line, ctx) for s in samples_text))
        if r["agg_fun1"] not in AGG_FUNCTIONS:
            raise SeedError("table_templates", line, f"unknown agg function {r['agg_fun1']!r}; use one of {', '.join(AGG_FUNCTIONS)}", ctx)
        if r["agg_fun1"] not in rng.aggregations:
            raise SeedError("table_templates", line, f"agg_fun1 {r['agg_fun1']!r} is not an aggregation the measure {values!r} admits ({';'.join(rng.aggregations)}, domain_value_ranges)", ctx)
        if not r["agg_name1"]:
            raise SeedError("table_templates", line, "agg_name1 is empty", ctx)
        templates.append(TableTemplate(r["domain"], r["template_name"], r["value_name"] or r["template_name"], rng,
                                       axes["row"][0], axes["row"][1], axes["col"][0], axes["col"][1],
                                       r["agg_name1"], r["agg_fun1"], line,
                                       tuple(dom.conditional_ranges.get(values, ())),
                                       model_for(value_models or {}, r["domain"], values, rng)))
    return templates


def load_options(df: pd.DataFrame) -> dict[str, dict[str, list[tuple[str, int]]]]:
    """domain (or `*`) -> option -> [(value, weight)] in file order.

    `weight` (a positive integer, 1 when blank) multiplies the replicas of every variant that uses the
    value: it sets how often a layout occurs without adding variants."""
    allowed = {
        "shuffle": SHUFFLES,
        "col_row_name_pos": NAME_POSITIONS,
        "row_format": ROW_FORMATS,
    }
    out: dict[str, dict[str, list[tuple[str, int]]]] = {}
    for line, r in rows_with_lines(df):
        ctx = f"domain={r['domain']}, option={r['option']}"
        opt, val = r["option"], r["value"] or ""
        if opt not in OPTIONS:
            raise SeedError("table_template_options", line, f"unknown option {opt!r}; options are {', '.join(OPTIONS)}", ctx)
        if opt in allowed and val not in allowed[opt]:
            raise SeedError("table_template_options", line, f"{opt} value {val!r} is not one of {', '.join(allowed[opt])}", ctx)
        if opt == "replica" and not (val.isdigit() and int(val) >= 1):
            raise SeedError("table_template_options", line, f"replica {val!r} is not a positive integer", ctx)
        if opt == "col_row_levels" and not re.fullmatch(r"[123]_[123]", val):
            raise SeedError("table_template_options", line, f"col_row_levels value {val!r} is not dc_dr with dc, dr in 1..3", ctx)
        if opt == "col_row_agg_pos":
            parts = val.split("_")
            if len(parts) != 2 or parts[0] not in COL_AGG or parts[1] not in ROW_AGG:
                raise SeedError("table_template_options", line, f"col_row_agg_pos value {val!r} is not C_R with C in none/left/right and R in none/top/bottom", ctx)
        weight_text = r.get("weight") or "1"
        if not (weight_text.isdigit() and int(weight_text) >= 1):
            raise SeedError("table_template_options", line, f"weight {weight_text!r} is not a positive integer", ctx)
        if opt == "replica" and weight_text != "1":
            raise SeedError("table_template_options", line, "replica takes no weight (it is the number of tables itself)", ctx)
        if any(v == val for v, _ in out.get(r["domain"], {}).get(opt, [])):
            raise SeedError("table_template_options", line, f"{opt} value {val!r} is listed twice for domain {r['domain']!r}; give it a weight instead", ctx)
        out.setdefault(r["domain"], {}).setdefault(opt, []).append((val, int(weight_text)))
    return out


def _option(options, domain: str, name: str) -> list[tuple[str, int]]:
    values = options.get(domain, {}).get(name) or options.get("*", {}).get(name)
    if not values:
        raise SeedError("table_template_options", None, f"no value for option {name!r} (neither for domain {domain!r} nor as default '*')")
    return values


def levels_of(template: TableTemplate, domains: dict[str, Domain], codes: tuple[str, ...]) -> int:
    return sum(domains[template.domain].codes[c].n_levels for c in codes)


def expand_variants(templates: list[TableTemplate], options, domains: dict[str, Domain],
                    replicas_override: Optional[int] = None) -> list[Variant]:
    """One variant per valid combination of the generic options, in a fixed order."""
    variants = []
    for t in templates:
        opts = {name: _option(options, t.domain, name) for name in OPTIONS}
        replicas = replicas_override or int(opts["replica"][0][0])
        row_levels, col_levels = levels_of(t, domains, t.row_codes), levels_of(t, domains, t.col_codes)
        vid = 0
        for combo in itertools.product(
                opts["shuffle"], opts["col_row_levels"], opts["col_row_name_pos"], opts["col_row_agg_pos"], opts["row_format"]):
            (shuffle, levels, name_pos, agg_pos, row_format) = (v for v, _ in combo)
            weight = math.prod(w for _, w in combo)
            dc, dr = (int(x) for x in levels.split("_"))
            if row_format == "indent" and dr == 1:
                continue  # indentation needs a parent level
            if shuffle == "all":
                if dc + dr > row_levels + col_levels:
                    continue
            elif dc > col_levels or dr > row_levels:
                continue
            vid += 1
            col_agg, row_agg = agg_pos.split("_")
            variants.append(Variant(t.domain, t.template_name, vid, replicas * weight, shuffle, dc, dr, name_pos, col_agg, row_agg, row_format))
    return variants
