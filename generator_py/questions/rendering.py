"""Rendering an NL question: a parsed template (template_syntax.py) filled from the facts of the question's
query (query_facts.py: what its SQL text says), never from a side channel, plus the report sentence of the domain."""
from __future__ import annotations

import re
from typing import Optional, Sequence

from .domain_nl import DomainNL
from .query_facts import QueryFacts, Scope
from .template_syntax import SEED_FILE, ParsedTemplate, Token
from .types import NLTemplateError
from .value_phrases import placeholder_stacks
from .word_lists import and_list

_DIRECTION_VARS = {"TOPK", "ORDERBYDESC"}
AGG_NAMES = {"min": "minimum", "max": "maximum", "sum": "total", "avg": "average"}
AGG_NAMES_SUP = {"min": "lowest", "max": "highest", "sum": "total", "avg": "average"}
OP_WORDS = {"<": "lower than", ">": "greater than"}


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
    if name == "GROUPINGSETS":
        return ", ".join("for each " + ctx.nl.say(g) for g in f.group_by) if f.group_by else None
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
                 "const", "eq_links", "n", "multi_attr", "stacks")

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
        # placeholders next to each other (no word between): values stacked before one head noun
        self.stacks = tuple(tuple((i, elems[i].text) for i in st) for st in placeholder_stacks(elems, tok.links))
        self.res = tuple((i, e.text) for i, e in enumerate(elems) if e.kind == "res")
        self.nested = any(e.kind == "res" and e.text == "NESTED" for e in elems)
        # per run: does a '==' link touch it (a run without placeholders then shows only between present runs)?
        self.eq_links = tuple((k > 0 and links[k - 1] == "==") or (k < len(links) and links[k] == "==")
                              for k in range(len(runs)))
        plain = all(e.kind == "word" and "/" not in e.text for e in elems)
        self.const = " ".join(e.text for e in elems) if plain else None


class _TemplatePlan:
    """A template's tokens as segments, computed once per parsed template: runs of constant tokens merged
    into one text, the other tokens with their _Plan; `nested_at`: index of the first $NESTED token."""

    __slots__ = ("segments", "nested_at")

    def __init__(self, tokens: Sequence[Token]):
        segs: list[tuple] = []  # (const text, None, None, index) | (None, token, plan, index)
        self.nested_at = None
        for i, tok in enumerate(tokens):
            p = _Plan(tok)
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


def _template_plan(template: ParsedTemplate, nl: DomainNL) -> _TemplatePlan:
    """The plan of a template, built once and kept by the DomainNL that renders it."""
    key = (template.template_id, template.phrasing, template.text)
    plan = nl.render_plans.get(key)
    if plan is None:
        plan = nl.render_plans[key] = _TemplatePlan(template.tokens)
    return plan


def _render_token(tok: Token, plan: _Plan, ctx: _Ctx, scope: Scope, later_text: str) -> str:
    vals: list = [None] * plan.n
    any_present = False
    trailing: list = []
    if plan.attrs:
        conditions = scope.conditions
        codes = ctx.nl.attribute_codes
        best: Optional[dict] = None
        for i, name in plan.attrs:
            v = conditions.get(name)
            if v:
                vals[i] = ctx.nl.say_values(name, v)
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
        if plan.stacks:
            trailing = _qualify_stacks(plan, vals, ctx, scope)
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
    return " ".join(pieces + trailing)


def _qualify_stacks(plan: "_Plan", vals: list, ctx: _Ctx, scope: Scope) -> list:
    """Values of several attributes stacked before one head noun, one of them a coordinated list: every
    attribute after the first shown is said after the token with its qualifier phrase ("Private or Mixed
    projects of type Shopping mall or Hotel"), so each "or" has a clear scope (value_phrases.py)."""
    out: list = []
    conditions = scope.conditions
    codes = ctx.nl.attribute_codes
    for stack in plan.stacks:
        shown = [(i, name) for i, name in stack if vals[i] is not None]
        if len(shown) < 2 or all(len(conditions[name]) < 2 for _, name in shown):
            continue
        first = codes.get(shown[0][1], (shown[0][1],))[0]
        for i, name in shown[1:]:
            q = ctx.nl.qualify(name, conditions[name]) if codes.get(name, (name,))[0] != first else None
            if q is not None:
                vals[i] = None
                ctx.used.add((id(scope), name))
                out.append(q)
    return out


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


def render_question(template: ParsedTemplate, facts: QueryFacts, nl: DomainNL) -> str:
    """Fill a parsed template from the facts of the question's query (plus the report sentence)."""
    ctx = _Ctx(facts, nl)
    tp = _template_plan(template, nl)
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
        text = text + " " + _render_plan(_template_plan(report, nl), rctx, outer, None)
    return text
