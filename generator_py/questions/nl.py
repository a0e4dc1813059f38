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
from typing import Iterable, Optional, Sequence

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
    report: tuple  # ParsedTemplate per wording of the report sentence
    templates: dict  # template_id -> tuple[ParsedTemplate, ...] (ordered by phrasing)
    attribute_codes: dict  # attribute name -> (code, level)
    spoken: dict = field(default_factory=dict)  # attribute name -> how a person says it (domain_attributes)

    def say(self, attr: str) -> str:
        return self.spoken.get(attr) or display_name(attr)

    def phrasings(self, template_id: int) -> tuple:
        return self.templates.get(template_id, ())


def load_domain_nl(nl_templates_df, meanings_df, attributes_df, domain: str, template_name: str) -> DomainNL:
    """Build the NL templates of one domain/template_name from the seed frames (validated).

    Rows whose template_name is '*' apply to every template_name of the domain that has no own rows.
    """
    attrs = attributes_df[attributes_df["domain"] == domain]
    codes = {}
    spoken = {}
    for r in attrs.itertuples(index=False):
        codes[str(r.attribute_name)] = (str(r.code), int(r.level))
        said = getattr(r, "spoken_name", None)
        if isinstance(said, str) and said.strip():
            spoken[str(r.attribute_name)] = said.strip()
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
    # several wordings, `;`-separated: questions of one table do not all end in the same sentence
    report = tuple(parse_template(text.strip(), names, 0, k + 1, mrow, MEANINGS_FILE)
                   for k, text in enumerate(str(m["report_sentence"]).split(";")) if text.strip())
    if not report or any("REPORTATTR" not in r.reserved for r in report):
        raise _err("every report sentence needs $REPORTATTR", mrow, MEANINGS_FILE)
    return DomainNL(domain, template_name, str(m["value_meaning"]), report,
                    {t: tuple(sorted(v, key=lambda p: p.phrasing)) for t, v in parsed.items()}, codes, spoken)


# ------------------------------------------------------------------ reading the AST


@dataclass
class Scope:
    conditions: dict = field(default_factory=dict)  # attribute -> list of literal values (SQL order)
    comparison: Optional[tuple] = None  # (op, threshold text)
    semi_attrs: list = field(default_factory=list)
    sub: Optional["Scope"] = None
    literals: list = field(default_factory=list)  # every literal of the WHERE clause (sub-query inline), SQL order


@dataclass
class QueryFacts:
    outer: Scope
    projected_attrs: list
    projects_value: bool
    aggregates: list
    group_by: list
    order_desc: Optional[bool]  # direction of ORDER BY Value, None when not ordered by Value
    limit: Optional[int]

    @property
    def literals(self) -> list:
        """Every literal of the WHERE clause (equality / IN values, thresholds, the sub-query's included)
        and the LIMIT, in SQL order, as the question prints them (see `_lit`)."""
        out = list(self.outer.literals)
        if self.limit is not None:
            out.append(str(self.limit))
        return out


def _flatten_and(node, out: list) -> list:
    while True:
        t = type(node)
        if t is exp.And:
            _flatten_and(node.this, out)
            node = node.expression
        elif t is exp.Paren:
            node = node.this
        else:
            out.append(node)
            return out


def _lit(node) -> str:
    """A literal's canonical text, as the question shows it: strings as they are, numbers through
    format_number, negative numbers (sqlglot reads `-5.5` as Neg(5.5)) with their sign."""
    if isinstance(node, exp.Literal):
        return node.this if node.args.get("is_string") else format_number(float(node.this))
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.args.get("is_string"):
        return format_number(-float(node.this.this))  # e.g. temperatures below zero
    raise ValueError(f"expected a literal, got {node.sql()}")


def _scope(select: exp.Select) -> Scope:
    sc = Scope()
    where = select.args.get("where")
    if where is None:
        return sc
    lits = sc.literals
    for c in _flatten_and(where.this, []):
        t = type(c)
        if t is exp.EQ and isinstance(c.this, exp.Column):
            v = _lit(c.expression)
            sc.conditions.setdefault(c.this.name, []).append(v)
            lits.append(v)
        elif t is exp.In and c.args.get("query") is not None:
            lhs = c.this
            cols = lhs.expressions if isinstance(lhs, exp.Tuple) else [lhs]
            sc.semi_attrs = [x.name for x in cols]
            q = c.args["query"]
            sc.sub = _scope(q.this if isinstance(q, exp.Subquery) else q)
            lits.extend(sc.sub.literals)
        elif t is exp.In and isinstance(c.this, exp.Column):
            vs = [_lit(x) for x in c.expressions]
            sc.conditions.setdefault(c.this.name, []).extend(vs)
            lits.extend(vs)
        elif (t is exp.LT or t is exp.GT) and isinstance(c.this, exp.Column):
            v = _lit(c.expression)
            sc.comparison = ("<" if t is exp.LT else ">", v)
            lits.append(v)
        else:
            raise ValueError(f"unsupported condition for NL rendering: {c.sql()}")
    return sc


_AGG_CLASSES = {exp.Min: "min", exp.Max: "max", exp.Sum: "sum", exp.Avg: "avg"}


def query_facts(ast: exp.Select) -> QueryFacts:
    """What the NL rendering reads from the question's sqlglot AST."""
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
    args = ast.args
    group = [g.name for g in args["group"].expressions] if args.get("group") else []
    desc = None
    if args.get("order"):
        for o in args["order"].expressions:
            if isinstance(o.this, exp.Column) and o.this.name.lower() == "value":
                desc = bool(o.args.get("desc"))
    limit = None
    if args.get("limit") is not None:
        limit = int(_lit(args["limit"].expression))
    return QueryFacts(_scope(ast), attrs, value, aggs, group, desc, limit)


def sql_literals(ast: exp.Select) -> list:
    """Every literal of the WHERE clause and the LIMIT of a question's AST, canonical text (QueryFacts.literals)."""
    return query_facts(ast).literals


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
    __slots__ = ("f", "nl", "count", "report_attrs", "used", "_res")

    def __init__(self, facts: QueryFacts, nl: DomainNL, report_attrs: Optional[list] = None):
        self.f = facts
        self.nl = nl
        self.count = _plural_count(facts)
        self.report_attrs = report_attrs
        self.used: set = set()  # (scope id, attribute) whose values were printed
        self._res: dict = {}

    def reserved(self, name: str, scope: Scope) -> Optional[str]:
        if name == "OPANDVAL":  # the only reserved word that reads its scope
            return _reserved_text(name, self, scope)
        res = self._res
        if name in res:
            return res[name]
        v = res[name] = _reserved_text(name, self, scope)
        return v


def _reserved_text(name: str, ctx: _Ctx, scope: Scope) -> Optional[str]:
    f = ctx.f
    if name == "EXPR":
        return and_list([AGG_NAMES[a] for a in f.aggregates]) if f.aggregates else None
    if name == "EXPRSUP":
        return and_list([AGG_NAMES_SUP[a] for a in f.aggregates]) if f.aggregates else None
    if name == "GROUPBY":
        return "for each " + and_list([ctx.nl.say(g) for g in f.group_by]) if f.group_by else None
    if name == "TOPK":
        return str(f.limit) if f.limit is not None else None
    if name == "ORDERBYDESC":
        return "" if f.order_desc is not None else None
    if name == "OPPATTR":
        names = f.outer.semi_attrs or f.projected_attrs
        return and_list([ctx.nl.say(a) for a in names]) if names else None
    if name == "OPANDVAL":
        cmp_ = scope.comparison or (f.outer.sub.comparison if f.outer.sub else None)
        if not cmp_:
            return None
        text = f"{OP_WORDS[cmp_[0]]} {cmp_[1]}"
        members = [a for a in f.projected_attrs if a not in f.outer.semi_attrs] if f.outer.semi_attrs else []
        if scope is f.outer.sub and members:
            # the sub-query keeps a group when any one of its rows passes: say so
            text += f" for at least one {ctx.nl.say(members[-1])}"
        return text
    if name == "NESTED":
        return "" if f.outer.sub is not None else None
    if name == "REPORTATTR":
        return and_list(ctx.report_attrs) if ctx.report_attrs else None
    return None


# element kinds inside a plan: plain word, singular/plural word ("a/b"), keep word, attribute, reserved word
_W, _S, _K, _A, _R = range(5)


class _Plan:
    """Per-token structure computed once: `_`-runs (their elements with kinds), their links, placeholders
    and flags."""

    __slots__ = ("items", "run_vars", "has_vars", "keep", "direction", "attrs", "attr_names", "res", "nested",
                 "const", "eq_links", "n", "multi_attr")

    def __init__(self, tok: Token):
        runs: list[list[int]] = [[0]]
        links: list[str] = []
        for i, link in enumerate(tok.links):
            if link in ("_", ""):
                runs[-1].append(i + 1)
            else:
                links.append(link)
                runs.append([i + 1])
        elems = tok.elems
        self.n = len(elems)

        def item(i: int) -> tuple:
            e = elems[i]
            if e.kind == "word":
                if "/" in e.text and len(e.text) > 1:
                    return (i, _S, e.text, tuple(e.text.split("/", 1)))
                return (i, _W, e.text, None)
            return (i, {"keep": _K, "attr": _A, "res": _R}[e.kind], e.text, None)

        self.items = tuple(tuple(item(i) for i in r) for r in runs)
        self.run_vars = tuple(tuple(i for i in r if elems[i].kind in ("attr", "res")) for r in runs)
        self.has_vars = any(self.run_vars)
        self.keep = tuple(
            (re.compile("|".join(r"\b" + re.escape(elems[i].text) + r"\b" for i in r if elems[i].kind == "keep"),
                        re.I) if any(elems[i].kind == "keep" for i in r) else None)
            for r in runs)
        self.direction = tuple(any(elems[i].kind == "res" and elems[i].text in _DIRECTION_VARS for i in r)
                               for r in runs)
        self.attrs = tuple((i, e.text) for i, e in enumerate(elems) if e.kind == "attr")
        self.attr_names = frozenset(e.text for e in elems if e.kind == "attr")
        self.multi_attr = len(self.attrs) > 1
        self.res = tuple((i, e.text) for i, e in enumerate(elems) if e.kind == "res")
        self.nested = any(e.kind == "res" and e.text == "NESTED" for e in elems)
        # per run: does a '==' link touch it (a run without placeholders then shows only between present runs)?
        self.eq_links = tuple((k > 0 and links[k - 1] == "==") or (k < len(links) and links[k] == "==")
                              for k in range(len(runs)))
        plain = all(e.kind == "word" and "/" not in e.text for e in elems)
        self.const = " ".join(e.text for e in elems) if plain else None


_PLANS: dict[int, tuple] = {}


def _plan(tok: Token) -> _Plan:
    hit = _PLANS.get(id(tok))
    if hit is None or hit[0] is not tok:
        hit = (tok, _Plan(tok))
        _PLANS[id(tok)] = hit
    return hit[1]


class _TemplatePlan:
    """A template's tokens as segments, computed once per parsed template: runs of constant tokens merged
    into one text, the other tokens with their _Plan; `nested_at`: index of the first $NESTED token."""

    __slots__ = ("segments", "nested_at")

    def __init__(self, tokens: Sequence[Token]):
        segs: list[tuple] = []  # (const text, None, None, index) | (None, token, plan, index)
        self.nested_at = None
        for i, tok in enumerate(tokens):
            p = _plan(tok)
            if p.nested and self.nested_at is None:
                self.nested_at = i
            if p.const is not None:
                if segs and segs[-1][0] is not None:
                    segs[-1] = (segs[-1][0] + " " + p.const, None, None, segs[-1][3])
                else:
                    segs.append((p.const, None, None, i))
            else:
                segs.append((None, tok, p, i))
        self.segments = tuple(segs)


_TEMPLATE_PLANS: dict[int, tuple] = {}


def _template_plan(tokens: tuple) -> _TemplatePlan:
    hit = _TEMPLATE_PLANS.get(id(tokens))
    if hit is None or hit[0] is not tokens:
        hit = (tokens, _TemplatePlan(tokens))
        _TEMPLATE_PLANS[id(tokens)] = hit
    return hit[1]


def _render_token(tok: Token, plan: _Plan, ctx: _Ctx, scope: Scope, later_text: str) -> str:
    vals: list = [None] * plan.n
    any_present = False
    if plan.attrs:
        conditions = scope.conditions
        codes = ctx.nl.attribute_codes
        best: Optional[dict] = None
        for i, name in plan.attrs:
            v = conditions.get(name)
            if v:
                vals[i] = v[0] if len(v) == 1 else or_list(v)
                any_present = True
                cl = codes.get(name)
                if cl is not None:
                    if best is None:
                        best = {}
                    b = best.get(cl[0])
                    if b is None or cl[1] > b[0]:
                        best[cl[0]] = (cl[1], i)
        # simplifyNested: keep only the most specific present attribute of each hierarchical code
        if best is not None and plan.multi_attr:
            for i, name in plan.attrs:
                if vals[i] is not None:
                    cl = codes.get(name)
                    if cl is not None and best[cl[0]][1] != i:
                        vals[i] = None  # named through its more specific level
                        ctx.used.add((id(scope), name))
    for i, name in plan.res:
        v = vals[i] = ctx.reserved(name, scope)
        if v is not None:
            any_present = True
    if not any_present and plan.has_vars:
        return ""  # no placeholder of the token is present: every run of it is dropped
    run_vars = plan.run_vars
    n_runs = len(run_vars)
    if n_runs == 1:
        run_present = (True,)
    else:
        rp: list = [None] * n_runs
        for k, rv in enumerate(run_vars):
            if rv:
                rp[k] = any(vals[i] is not None for i in rv)
        for k in range(n_runs):
            if rp[k] is not None:
                continue
            if plan.eq_links[k]:
                lp = next((rp[j] for j in range(k - 1, -1, -1) if rp[j] is not None), False)
                rt = next((rp[j] for j in range(k + 1, n_runs) if rp[j] is not None), False)
                rp[k] = bool(lp and rt)
            else:
                rp[k] = any_present if plan.has_vars else True
        run_present = rp
    pieces: list[str] = []
    keep = plan.keep
    for k, items in enumerate(plan.items):
        if not run_present[k]:
            continue
        if keep[k] is not None and keep[k].search(later_text):
            continue
        for i, kind, text, forms in items:
            if kind == _W or kind == _K:
                pieces.append(text)
            elif kind == _S:
                if plan.direction[k]:
                    pieces.append(forms[0] if ctx.f.order_desc else forms[1])
                else:
                    pieces.append(forms[0] if ctx.count == 1 else forms[1])
            else:
                v = vals[i]
                if v:
                    pieces.append(v)
                    if kind == _A:
                        ctx.used.add((id(scope), text))
    return " ".join(pieces)


_SPACE_PUNCT = re.compile(r"\s+([?.,!;:])")
_SPACES = re.compile(r"\s+")


def _render_plan(tp: _TemplatePlan, ctx: _Ctx, outer: Scope, sub: Optional[Scope]) -> str:
    """Render a template's segments; tokens from $NESTED on read `sub` when the query has a sub-query."""
    out: list[str] = []
    later = ""
    nested_at = tp.nested_at if sub is not None else None
    for const, tok, plan, idx in reversed(tp.segments):
        if const is not None:
            t = const
        else:
            if plan.nested:
                later = ""  # ((word)) looks ahead only within its own part of the question
            sc = sub if nested_at is not None and idx >= nested_at else outer
            if plan.attr_names and not plan.res and plan.attr_names.isdisjoint(sc.conditions):
                continue  # none of its placeholders is present: it renders nothing
            t = _render_token(tok, plan, ctx, sc, later)
        if t:
            out.append(t)
            later = t + " " + later
    out.reverse()
    text = _SPACE_PUNCT.sub(r"\1", " ".join(out))
    if "  " in text or "\n" in text or "\t" in text:
        text = _SPACES.sub(" ", text)
    text = text.strip()
    return text[:1].upper() + text[1:]


def _render_tokens(tokens: Sequence[Token], ctx: _Ctx, scopes: Sequence[Scope]) -> str:
    """Render tokens with one scope per token (kept for callers that pass scopes explicitly)."""
    out: list[str] = []
    later = ""
    for tok, sc in zip(reversed(tokens), reversed(scopes)):
        plan = _plan(tok)
        if plan.nested:
            later = ""
        t = plan.const if plan.const is not None else _render_token(tok, plan, ctx, sc, later)
        if t:
            out.append(t)
            later = t + " " + later
    text = " ".join(reversed(out))
    text = _SPACE_PUNCT.sub(r"\1", text)
    text = _SPACES.sub(" ", text).strip()
    return text[:1].upper() + text[1:]


def render_question(template: ParsedTemplate, ast: exp.Select, nl: DomainNL,
                    facts: Optional[QueryFacts] = None) -> str:
    """Fill a parsed template from the sqlglot AST of the question's SQL (plus the report sentence).

    `facts`: query_facts(ast) when the caller already has them (they are read from the same AST).
    """
    if facts is None:
        facts = query_facts(ast)
    ctx = _Ctx(facts, nl)
    tp = _template_plan(template.tokens)
    outer, sub = facts.outer, facts.outer.sub
    text = _render_plan(tp, ctx, outer, sub)
    # every condition must have been printed
    scopes = [outer]
    if sub is not None and tp.nested_at is not None:
        scopes = [outer, sub] if tp.nested_at > 0 else [sub]
    for sc in scopes:
        sid = id(sc)
        for a in sc.conditions:
            if (sid, a) not in ctx.used:
                raise NLTemplateError(
                    f"{SEED_FILE}: row (domain={nl.domain!r}, template_name={nl.template_name!r}, "
                    f"template_id={template.template_id}, phrasing={template.phrasing}): "
                    f"no placeholder shows the condition on ${a}")
    if facts.projected_attrs and (facts.aggregates or facts.projects_value):
        names = [nl.say(a) for a in facts.projected_attrs]
        if facts.projects_value:
            names.append(nl.value_meaning)
        rctx = _Ctx(facts, nl, report_attrs=names)
        report = nl.report[(template.template_id + template.phrasing) % len(nl.report)]
        text = text + " " + _render_plan(_template_plan(report.tokens), rctx, outer, None)
    return text
