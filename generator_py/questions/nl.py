"""Natural-language rendering: the template mini-language of the HCT-QA paper (Appendix B-D).

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
``$NESTED`` (template 15: the tokens after it read the sub-query's conditions; prints nothing) and
``$REPORTATTR`` (report sentence only).

Everything is filled from the sqlglot AST of the question's own SQL, never from a side channel.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

from sqlglot import exp

from ..formatting import format_number
from .types import NLTemplateError

SEED_FILE = "seeds/nl_templates.csv"
MEANINGS_FILE = "seeds/nl_table_meanings.csv"

RESERVED = ("EXPRSUP", "EXPR", "GROUPBY", "TOPK", "ORDERBYDESC", "OPPATTR", "OPANDVAL", "NESTED", "REPORTATTR")
_DIRECTION_VARS = {"TOPK", "ORDERBYDESC"}

# template_id -> groups of reserved words; each group needs at least one member
REQUIRED: dict[int, list[tuple[str, ...]]] = {
    4: [("EXPR", "EXPRSUP")], 5: [("EXPR", "EXPRSUP")], 7: [("EXPR", "EXPRSUP")],
    8: [("EXPR", "EXPRSUP"), ("GROUPBY",)], 9: [("EXPR", "EXPRSUP"), ("GROUPBY",)],
    10: [("EXPR", "EXPRSUP"), ("GROUPBY",)], 11: [("EXPR", "EXPRSUP"), ("GROUPBY",)],
    12: [("TOPK",)], 13: [("ORDERBYDESC",)], 14: [("OPPATTR",), ("OPANDVAL",)],
    15: [("OPPATTR",), ("OPANDVAL",), ("NESTED",)],
}
ALLOWED: dict[str, set[int]] = {
    "EXPR": {4, 5, 7, 8, 9, 10, 11}, "EXPRSUP": {4, 5, 7, 8, 9, 10, 11}, "GROUPBY": {8, 9, 10, 11},
    "TOPK": {12}, "ORDERBYDESC": {13}, "OPPATTR": {14, 15}, "OPANDVAL": {14, 15}, "NESTED": {15},
    "REPORTATTR": set(),
}
AGG_NAMES = {"min": "minimum", "max": "maximum", "sum": "total", "avg": "average"}
AGG_NAMES_SUP = {"min": "lowest", "max": "highest", "sum": "total", "avg": "average"}
OP_WORDS = {"<": "lower than", ">": "greater than"}


def display_name(attr: str) -> str:
    return attr.replace("_", " ")


def or_list(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} or {items[1]}"
    return ", ".join(items[:-1]) + ", or " + items[-1]


def and_list(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]} and {items[1]}"
    return ", ".join(items[:-1]) + ", and " + items[-1]


# ------------------------------------------------------------------ parsing templates


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


def _err(problem: str, row: dict, file: str = SEED_FILE) -> NLTemplateError:
    loc = ", ".join(f"{k}={row[k]!r}" for k in ("domain", "template_name", "template_id", "phrasing") if k in row)
    line = f", line {row['line']}" if row.get("line") is not None else ""
    return NLTemplateError(f"{file}: row ({loc}{line}): {problem}")


def parse_template(text: str, attribute_names: Iterable[str], template_id: int, phrasing: int,
                   row: Optional[dict] = None, file: str = SEED_FILE) -> ParsedTemplate:
    row = row or {"template_id": template_id, "phrasing": phrasing}
    if text.strip().startswith("$"):
        raise _err("a template must not start with a placeholder", row, file)
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
                    raise _err(f"unclosed '((' in {raw!r}", row, file)
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
                        raise _err(f"unknown reserved word ${bad} in {raw!r}", row, file)
                    raise _err(f"attribute ${bad} in {raw!r} is not an attribute of this domain", row, file)
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
                    raise _err(f"cannot read {raw!r} at character {pos}", row, file)
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
                        raise _err(f"cannot read {raw!r} at character {pos}", row, file)
                    links.append("")  # adjacent, e.g. "word$X" (treated as '_')
                if pos >= len(raw):
                    raise _err(f"dangling link at the end of {raw!r}", row, file)
        tokens.append(Token(tuple(elems), tuple(links)))
    for r in reserved:
        if r in ALLOWED and template_id not in ALLOWED[r] and template_id != 0:
            raise _err(f"${r} is not allowed in template {template_id}", row, file)
    for group in REQUIRED.get(template_id, []):
        if not reserved.intersection(group):
            raise _err(f"template {template_id} needs ${' or $'.join(group)}", row, file)
    return ParsedTemplate(template_id, phrasing, text, tuple(tokens), frozenset(attrs), frozenset(reserved))


# ------------------------------------------------------------------ domain NL


@dataclass(frozen=True)
class DomainNL:
    domain: str
    template_name: str
    value_meaning: str
    report: ParsedTemplate
    templates: dict  # template_id -> tuple[ParsedTemplate, ...] (ordered by phrasing)
    attribute_codes: dict  # attribute name -> (code, level)

    def phrasings(self, template_id: int) -> tuple:
        return self.templates.get(template_id, ())


def load_domain_nl(nl_templates_df, meanings_df, attributes_df, domain: str, template_name: str) -> DomainNL:
    """Build the NL templates of one domain/template_name from the seed frames (validated).

    Rows whose template_name is '*' apply to every template_name of the domain that has no own rows.
    """
    attrs = attributes_df[attributes_df["domain"] == domain]
    codes = {}
    for r in attrs.itertuples(index=False):
        codes[str(r.attribute_name)] = (str(r.code), int(r.level))
    names = set(codes)

    def rows_for(df):
        d = df[df["domain"] == domain]
        own = d[d["template_name"] == template_name]
        return own if len(own) else d[d["template_name"] == "*"]

    trows = rows_for(nl_templates_df)
    if not len(trows):
        raise NLTemplateError(f"{SEED_FILE}: no templates for domain={domain!r}, template_name={template_name!r}")
    parsed: dict[int, list] = {}
    for idx, r in trows.iterrows():
        row = {"domain": domain, "template_name": r["template_name"], "template_id": int(r["template_id"]),
               "phrasing": int(r["phrasing"]), "line": (int(idx) + 2) if isinstance(idx, (int,)) else None}
        tid = int(r["template_id"])
        if not 1 <= tid <= 15:
            raise _err(f"template_id must be in 1..15, got {tid}", row)
        text = str(r["text"])
        if not text.strip():
            raise _err("empty template text", row)
        parsed.setdefault(tid, []).append(parse_template(text, names, tid, int(r["phrasing"]), row))
    missing = [t for t in range(1, 16) if t not in parsed]
    if missing:
        raise NLTemplateError(f"{SEED_FILE}: domain={domain!r}, template_name={template_name!r}: "
                              f"no template for template_id {missing}")
    mrows = rows_for(meanings_df)
    if len(mrows) != 1:
        raise NLTemplateError(f"{MEANINGS_FILE}: expected one row for domain={domain!r}, "
                              f"template_name={template_name!r}, found {len(mrows)}")
    m = mrows.iloc[0]
    mrow = {"domain": domain, "template_name": m["template_name"], "template_id": "report", "phrasing": 0}
    report = parse_template(str(m["report_sentence"]), names, 0, 0, mrow, MEANINGS_FILE)
    if "REPORTATTR" not in report.reserved:
        raise _err("the report sentence needs $REPORTATTR", mrow, MEANINGS_FILE)
    return DomainNL(domain, template_name, str(m["value_meaning"]), report,
                    {t: tuple(sorted(v, key=lambda p: p.phrasing)) for t, v in parsed.items()}, codes)


# ------------------------------------------------------------------ reading the AST


@dataclass
class Scope:
    conditions: dict = field(default_factory=dict)  # attribute -> list of literal values (SQL order)
    comparison: Optional[tuple] = None  # (op, threshold text)
    semi_attrs: list = field(default_factory=list)
    sub: Optional["Scope"] = None


@dataclass
class QueryFacts:
    outer: Scope
    projected_attrs: list
    projects_value: bool
    aggregates: list
    group_by: list
    order_desc: Optional[bool]  # direction of ORDER BY Value, None when not ordered by Value
    limit: Optional[int]


def _flatten_and(node):
    if isinstance(node, exp.And):
        yield from _flatten_and(node.this)
        yield from _flatten_and(node.expression)
    elif isinstance(node, exp.Paren):
        yield from _flatten_and(node.this)
    else:
        yield node


def _lit(node) -> str:
    if isinstance(node, exp.Literal):
        return node.this
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return "-" + node.this.this  # a negative threshold (e.g. temperatures below zero)
    raise ValueError(f"expected a literal, got {node.sql()}")


def _scope(select: exp.Select) -> Scope:
    sc = Scope()
    where = select.args.get("where")
    if where is None:
        return sc
    for c in _flatten_and(where.this):
        if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column):
            sc.conditions.setdefault(c.this.name, []).append(_lit(c.expression))
        elif isinstance(c, exp.In) and c.args.get("query") is not None:
            lhs = c.this
            cols = lhs.expressions if isinstance(lhs, exp.Tuple) else [lhs]
            sc.semi_attrs = [x.name for x in cols]
            q = c.args["query"]
            sub = q.this if isinstance(q, exp.Subquery) else q
            sc.sub = _scope(sub)
        elif isinstance(c, exp.In) and isinstance(c.this, exp.Column):
            sc.conditions.setdefault(c.this.name, []).extend(_lit(x) for x in c.expressions)
        elif isinstance(c, (exp.LT, exp.GT)) and isinstance(c.this, exp.Column):
            sc.comparison = ("<" if isinstance(c, exp.LT) else ">", format_number(float(_lit(c.expression))))
        else:
            raise ValueError(f"unsupported condition for NL rendering: {c.sql()}")
    return sc


_AGG_CLASSES = {exp.Min: "min", exp.Max: "max", exp.Sum: "sum", exp.Avg: "avg"}


def query_facts(ast: exp.Select) -> QueryFacts:
    attrs, aggs, value = [], [], False
    for e in ast.expressions:
        fn = _AGG_CLASSES.get(type(e))
        if fn:
            aggs.append(fn)
        elif isinstance(e, exp.Column):
            if e.name.lower() == "value":
                value = True
            else:
                attrs.append(e.name)
        else:
            raise ValueError(f"unsupported projection for NL rendering: {e.sql()}")
    group = [g.name for g in ast.args["group"].expressions] if ast.args.get("group") else []
    desc = None
    if ast.args.get("order"):
        for o in ast.args["order"].expressions:
            if isinstance(o.this, exp.Column) and o.this.name.lower() == "value":
                desc = bool(o.args.get("desc"))
    limit = None
    if ast.args.get("limit") is not None:
        limit = int(_lit(ast.args["limit"].expression))
    return QueryFacts(_scope(ast), attrs, value, aggs, group, desc, limit)


# ------------------------------------------------------------------ rendering


def _plural_count(f: QueryFacts) -> int:
    if f.aggregates:
        return len(f.aggregates)
    if f.projected_attrs and not f.projects_value:
        return len(f.projected_attrs)
    many = (f.limit is not None or f.order_desc is not None or f.outer.sub is not None
            or any(len(v) > 1 for v in f.outer.conditions.values()))
    return 2 if many else 1


class _Ctx:
    def __init__(self, facts: QueryFacts, nl: DomainNL, report_attrs: Optional[list] = None):
        self.f = facts
        self.nl = nl
        self.count = _plural_count(facts)
        self.report_attrs = report_attrs
        self.used: set = set()  # attributes whose values were printed (per scope id)


def _reserved_text(name: str, ctx: _Ctx, scope: Scope) -> Optional[str]:
    f = ctx.f
    if name == "EXPR":
        return and_list([AGG_NAMES[a] for a in f.aggregates]) if f.aggregates else None
    if name == "EXPRSUP":
        return and_list([AGG_NAMES_SUP[a] for a in f.aggregates]) if f.aggregates else None
    if name == "GROUPBY":
        return "for each " + and_list([display_name(g) for g in f.group_by]) if f.group_by else None
    if name == "TOPK":
        return str(f.limit) if f.limit is not None else None
    if name == "ORDERBYDESC":
        return "" if f.order_desc is not None else None
    if name == "OPPATTR":
        names = f.outer.semi_attrs or f.projected_attrs
        return and_list([display_name(a) for a in names]) if names else None
    if name == "OPANDVAL":
        cmp_ = scope.comparison or (f.outer.sub.comparison if f.outer.sub else None)
        return f"{OP_WORDS[cmp_[0]]} {cmp_[1]}" if cmp_ else None
    if name == "NESTED":
        return "" if f.outer.sub is not None else None
    if name == "REPORTATTR":
        return and_list(ctx.report_attrs) if ctx.report_attrs else None
    return None


class _Plan:
    """Per-token structure computed once: `_`-runs, their links, placeholders and flags."""

    __slots__ = ("runs", "run_links", "run_vars", "has_vars", "keep", "direction", "attr_idx", "nested", "const")

    def __init__(self, tok: Token):
        runs: list[list[int]] = [[0]]
        links: list[str] = []
        for i, link in enumerate(tok.links):
            if link in ("_", ""):
                runs[-1].append(i + 1)
            else:
                links.append(link)
                runs.append([i + 1])
        self.runs = [tuple(r) for r in runs]
        self.run_links = links
        self.run_vars = [tuple(i for i in r if tok.elems[i].kind in ("attr", "res")) for r in runs]
        self.has_vars = any(self.run_vars)
        self.keep = [
            (re.compile("|".join(r"\b" + re.escape(tok.elems[i].text) + r"\b" for i in r if tok.elems[i].kind == "keep"),
                        re.I) if any(tok.elems[i].kind == "keep" for i in r) else None)
            for r in runs]
        self.direction = [any(tok.elems[i].kind == "res" and tok.elems[i].text in _DIRECTION_VARS for i in r)
                          for r in runs]
        self.attr_idx = tuple(i for i, e in enumerate(tok.elems) if e.kind == "attr")
        self.nested = any(e.kind == "res" and e.text == "NESTED" for e in tok.elems)
        plain = all(e.kind == "word" and "/" not in e.text for e in tok.elems)
        self.const = " ".join(e.text for e in tok.elems) if plain else None


_PLANS: dict[int, tuple] = {}


def _plan(tok: Token) -> _Plan:
    hit = _PLANS.get(id(tok))
    if hit is None or hit[0] is not tok:
        hit = (tok, _Plan(tok))
        _PLANS[id(tok)] = hit
    return hit[1]


def _render_token(tok: Token, ctx: _Ctx, scope: Scope, later_text: str) -> str:
    plan = _plan(tok)
    if plan.const is not None:
        return plan.const
    elems = tok.elems
    vals: dict[int, Optional[str]] = {}
    codes = ctx.nl.attribute_codes
    best: dict[str, tuple[int, int]] = {}
    for i in plan.attr_idx:
        v = scope.conditions.get(elems[i].text)
        vals[i] = or_list(v) if v else None
        if v and elems[i].text in codes:
            code, level = codes[elems[i].text]
            if code not in best or level > best[code][0]:
                best[code] = (level, i)
    for rv in plan.run_vars:
        for i in rv:
            if elems[i].kind == "res":
                vals[i] = _reserved_text(elems[i].text, ctx, scope)
    # simplifyNested: keep only the most specific present attribute of each hierarchical code
    for i in plan.attr_idx:
        if vals[i] is not None and elems[i].text in codes:
            if best[codes[elems[i].text][0]][1] != i:
                vals[i] = None  # named through its more specific level
                ctx.used.add((id(scope), elems[i].text))
    any_present = any(v is not None for v in vals.values())
    run_present: list[Optional[bool]] = [
        (any(vals[i] is not None for i in rv) if rv else None) for rv in plan.run_vars]
    n_runs = len(plan.runs)
    for k in range(n_runs):
        if run_present[k] is not None:
            continue
        left = plan.run_links[k - 1] if k > 0 else None
        right = plan.run_links[k] if k < len(plan.run_links) else None
        if left == "==" or right == "==":
            lp = next((run_present[j] for j in range(k - 1, -1, -1) if run_present[j] is not None), False)
            rp = next((run_present[j] for j in range(k + 1, n_runs) if run_present[j] is not None), False)
            run_present[k] = bool(lp and rp)
        else:
            run_present[k] = any_present if plan.has_vars else True
    pieces: list[str] = []
    for k, run in enumerate(plan.runs):
        if not run_present[k]:
            continue
        if plan.keep[k] is not None and plan.keep[k].search(later_text):
            continue
        direction = plan.direction[k]
        for i in run:
            e = elems[i]
            if e.kind == "word":
                w = e.text
                if "/" in w and len(w) > 1:
                    a, b = w.split("/", 1)
                    if direction:
                        w = a if ctx.f.order_desc else b
                    else:
                        w = a if ctx.count == 1 else b
                pieces.append(w)
            elif e.kind == "keep":
                pieces.append(e.text)
            elif vals[i]:
                pieces.append(vals[i])
                if e.kind == "attr":
                    ctx.used.add((id(scope), e.text))
    return " ".join(pieces)


_SPACE_PUNCT = re.compile(r"\s+([?.,!;:])")
_SPACES = re.compile(r"\s+")


def _render_tokens(tokens: Sequence[Token], ctx: _Ctx, scopes: Sequence[Scope]) -> str:
    out: list[str] = []
    later = ""
    for tok, sc in zip(reversed(tokens), reversed(scopes)):
        if _plan(tok).nested:
            later = ""  # ((word)) looks ahead only within its own part of the question
        t = _render_token(tok, ctx, sc, later)
        if t:
            out.append(t)
            later = t + " " + later
    text = " ".join(reversed(out))
    text = _SPACE_PUNCT.sub(r"\1", text)
    text = _SPACES.sub(" ", text).strip()
    return text[:1].upper() + text[1:]


def render_question(template: ParsedTemplate, ast: exp.Select, nl: DomainNL) -> str:
    """Fill a parsed template from the sqlglot AST of the question's SQL (plus the report sentence)."""
    facts = query_facts(ast)
    ctx = _Ctx(facts, nl)
    scopes = []
    cur = facts.outer
    for tok in template.tokens:
        if any(e.kind == "res" and e.text == "NESTED" for e in tok.elems) and facts.outer.sub is not None:
            cur = facts.outer.sub
        scopes.append(cur)
    text = _render_tokens(template.tokens, ctx, scopes)
    # every condition must have been printed
    for sc in {id(s): s for s in scopes}.values():
        for a in sc.conditions:
            if (id(sc), a) not in ctx.used:
                raise NLTemplateError(
                    f"{SEED_FILE}: row (domain={nl.domain!r}, template_name={nl.template_name!r}, "
                    f"template_id={template.template_id}, phrasing={template.phrasing}): "
                    f"no placeholder shows the condition on ${a}")
    if facts.projected_attrs and (facts.aggregates or facts.projects_value):
        names = [display_name(a) for a in facts.projected_attrs]
        if facts.projects_value:
            names.append(nl.value_meaning)
        rctx = _Ctx(facts, nl, report_attrs=names)
        text = text + " " + _render_tokens(nl.report.tokens, rctx, [facts.outer] * len(nl.report.tokens))
    return text
