"""Instantiate the 15 SQL templates of the paper's Table III on a relational table.

Conditions come from header paths: a row path is the tuple of row-attribute labels of one data row
(outer to inner, None where an unbalanced branch stops early), a column path likewise. Selecting a set
of paths puts, per attribute, an equality (one label) or an IN list (several labels, in table order) on
the attributes that exist for all chosen paths; inside one hierarchical code only the deepest such
level is conditioned (labels there determine their parents), so that the NL text, which names only the
most specific level of a group, shows every literal of the SQL. Every instance is evaluated in Python
(spec.evaluate_spec) and redrawn until it meets its template's constraints.
"""
from __future__ import annotations

import hashlib
import random
from typing import Any, Optional, Sequence

from ..formatting import format_number
from ..relational import RelationalTable
from .nl import DomainNL, query_facts, render_question
from .properties import question_properties
from .spec import VALUE, Rows, ast_to_sql, evaluate_filtered, filtered_rows, spec_to_ast
from .types import Measure, QuestionInstance

# aggregates that add values up: across values of a non-additive attribute they mean nothing
ADDING_AGGS = ("sum", "avg")
MAX_TRIES = 25
TEMPLATE_IDS = tuple(range(1, 16))


def stable_seed(seed: int, table_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}|{table_id}".encode()).digest()[:8], "big")


class TableModel:
    """Paths and cells of one relational table, precomputed once."""

    def __init__(self, table: RelationalTable, rows: Optional[Sequence[tuple]] = None, measure: Measure = Measure()):
        """`rows`: the table's rows as plain tuples (attribute labels or None, then the float Value), when the
        caller has them; otherwise `table.plain_rows` if present, else they are read from `table.frame` once."""
        self.table = table
        self.measure = measure
        self.row_attrs = [a.name for a in table.row_attributes]
        self.col_attrs = [a.name for a in table.col_attributes]
        self.attr_info = {a.name: a for a in table.attributes}
        names = [a.name for a in table.attributes]
        if rows is None:
            rows = getattr(table, "plain_rows", None)
        self.rows = Rows.from_frame(table.frame, names) if rows is None else Rows(names + [VALUE], list(rows))
        ri = [self.rows.index[a] for a in self.row_attrs]
        ci = [self.rows.index[a] for a in self.col_attrs]
        vi = self.rows.index["Value"]
        self.row_paths: list[tuple] = []
        self.col_paths: list[tuple] = []
        seen_r, seen_c = set(), set()
        self.cells: dict[tuple, float] = {}
        for r in self.rows.rows:
            rp = tuple(r[i] for i in ri)
            cp = tuple(r[i] for i in ci)
            if rp not in seen_r:
                seen_r.add(rp)
                self.row_paths.append(rp)
            if cp not in seen_c:
                seen_c.add(cp)
                self.col_paths.append(cp)
            self.cells[(rp, cp)] = r[vi]
        # label order per attribute (table order)
        self.order: dict[str, dict[str, int]] = {}
        for name in self.row_attrs + self.col_attrs:
            i = self.rows.index[name]
            d: dict[str, int] = {}
            for r in self.rows.rows:
                if r[i] is not None and r[i] not in d:
                    d[r[i]] = len(d)
            self.order[name] = d
        self._meta: dict[str, list] = {}
        self.depth = {a.name: a.depth for a in table.attributes}
        # attributes never NULL
        self.complete = {n for n in self.row_attrs + self.col_attrs
                         if all(r[self.rows.index[n]] is not None for r in self.rows.rows)}

    def _axis_meta(self, axis: str) -> list[tuple]:
        """(index in path, attribute, code, level, label order) per attribute of an axis, computed once."""
        meta = self._meta.get(axis)
        if meta is None:
            attrs = self.row_attrs if axis == "row" else self.col_attrs
            meta = [(j, a, self.attr_info[a].code, self.attr_info[a].level, self.order[a]) for j, a in enumerate(attrs)]
            self._meta[axis] = meta
        return meta

    def filters_for(self, axis: str, paths: Sequence[tuple]) -> list[dict]:
        usable = []
        one = len(paths) == 1
        for j, a, code, level, order in self._axis_meta(axis):
            if one:
                v = paths[0][j]
                if v is None:
                    continue
                vals = [v]
            else:
                vs = [p[j] for p in paths]
                if None in vs:
                    continue
                vals = sorted(set(vs), key=order.__getitem__)
            usable.append((j, a, code, level, vals))
        # one level per hierarchical code: the deepest usable one (the first of equal levels)
        deepest: dict[str, tuple] = {}
        for j, a, code, level, _ in usable:
            d = deepest.get(code)
            if d is None or level > d[1]:
                deepest[code] = (j, level)
        return [{"attribute": a, "values": vals} for j, a, code, level, vals in usable if deepest[code][0] == j]


def _sample(rng: random.Random, items: Sequence, lo: int, hi: int) -> list:
    n = len(items)
    k = min(n, rng.randint(lo, hi))
    idx = sorted(rng.sample(range(n), k))
    return [items[i] for i in idx]


# `paper`: Table III as written (SQL4, SQL7 and SQL8 carry two aggregates, SQL9 takes MIN);
# `extended`: one or two aggregates where Table III has two, any aggregate for SQL9.
QUESTION_VARIETIES = ("paper", "extended")


def _aggs(rng: random.Random, variety: str, allowed: Sequence[str], n: Optional[int] = None) -> list[dict]:
    """Distinct aggregates among those the measure admits (`allowed`, at least two)."""
    if n is None:
        n = 2 if variety == "paper" or rng.random() >= 0.35 else 1
    return [{"kind": "aggregate", "function": f} for f in rng.sample(list(allowed), n)]


def _spec(filters, select, **kw) -> dict:
    s = {"filters": filters, "value_condition": None, "semi_join": None, "select": select,
         "group_by": [], "order_by": [], "limit": None}
    s.update(kw)
    return s


VALUE_SEL = [{"kind": "value"}]


def _draw(tid: int, m: TableModel, rng: random.Random, variety: str = "paper") -> Optional[tuple[dict, dict]]:
    """One random instance of template `tid`: (spec, extra metadata) or None when not applicable."""
    R, C = m.row_paths, m.col_paths
    one_r = lambda: [rng.choice(R)]  # noqa: E731
    one_c = lambda: [rng.choice(C)]  # noqa: E731
    many_r = lambda: _sample(rng, R, 2, 4)  # noqa: E731
    many_c = lambda: _sample(rng, C, 2, 4)  # noqa: E731
    allowed = m.measure.aggregations
    if tid == 1:
        return _spec(m.filters_for("row", one_r()) + m.filters_for("col", one_c()), VALUE_SEL), {}
    if tid == 2:
        return _spec(m.filters_for("row", many_r()) + m.filters_for("col", one_c()), VALUE_SEL), {}
    if tid == 3:
        return _spec(m.filters_for("row", one_r()) + m.filters_for("col", many_c()), VALUE_SEL), {}
    if tid == 4:
        return _spec(m.filters_for("row", one_r()) + m.filters_for("col", many_c()), _aggs(rng, variety, allowed)), {}
    if tid == 5:
        return _draw_shown(m, rng)
    if tid == 6:
        return _spec(m.filters_for("row", many_r()) + m.filters_for("col", many_c()), VALUE_SEL), {}
    if tid == 7:
        return _spec(m.filters_for("row", many_r()) + m.filters_for("col", one_c()), _aggs(rng, variety, allowed)), {}
    if tid == 8:
        gb = list(m.col_attrs)
        sel = [{"kind": "attribute", "name": a} for a in gb] + _aggs(rng, variety, allowed)
        return _spec(m.filters_for("row", many_r()) + m.filters_for("col", many_c()), sel, group_by=gb,
                     order_by=[{"kind": "attribute", "name": a, "direction": "asc"} for a in gb]), {}
    if tid in (9, 10, 11):
        r1 = m.row_attrs[0]
        gb = [r1] + (list(m.col_attrs) if tid == 11 else [])
        if tid == 9 and variety == "paper" and "min" in allowed:
            aggs = [{"kind": "aggregate", "function": "min"}]
        else:
            aggs = _aggs(rng, variety, allowed, 1)
        sel = ([] if tid == 9 else [{"kind": "attribute", "name": a} for a in gb]) + aggs
        cols = many_c() if tid == 11 else one_c()
        return _spec(m.filters_for("row", many_r()) + m.filters_for("col", cols), sel, group_by=gb,
                     order_by=[{"kind": "attribute", "name": a, "direction": "asc"} for a in gb]), {}
    if tid in (12, 13):
        r1 = m.row_attrs[0]
        labels = list(m.order[r1])
        chosen = _sample(rng, labels, 1, 3) if len(labels) > 1 else labels
        filters = [{"attribute": r1, "values": chosen}] + m.filters_for("col", one_c())
        direction = rng.choice(["asc", "desc"])
        spec = _spec(filters, VALUE_SEL, order_by=[{"kind": "value", "name": "Value", "direction": direction}])
        n = len(filtered_rows(m.rows, spec))
        if n < 2:
            return None
        if tid == 12:
            spec["limit"] = rng.randint(2, min(5, n - 1 if n > 2 else 2))
        return spec, {}
    if tid in (14, 15):
        if len(R) < 2:
            return None
        c14 = rng.choice(C)
        col_f = m.filters_for("col", [c14])
        vals = [m.cells[(rp, c14)] for rp in R if (rp, c14) in m.cells]
        if len(vals) < 2:
            return None
        num = float(format_number(sum(vals) / len(vals)))
        op = rng.choice(["<", ">"])
        vc = {"op": op, "threshold": num}
        if tid == 14:
            sel = [{"kind": "attribute", "name": a} for a in m.row_attrs]
            return _spec(col_f, sel, value_condition=vc), {}
        others = [c for c in C if c != c14]
        if not others:
            return None
        c15 = rng.choice(others)
        keys = [a for a in m.row_attrs if a in m.complete] or [m.row_attrs[0]]
        sel = [{"kind": "attribute", "name": a} for a in m.row_attrs] + VALUE_SEL
        sj = {"attributes": keys, "filters": col_f, "value_condition": vc}
        return _spec(m.filters_for("col", [c15]), sel, semi_join=sj), {}
    raise ValueError(f"unknown template {tid}")


def _draw_shown(m: TableModel, rng: random.Random) -> Optional[tuple[dict, dict]]:
    shown = list(m.table.shown_aggregates)
    if not shown:
        return None
    agg = rng.choice(shown)
    filters = _group_filters(m, "row", agg.row_group) + _group_filters(m, "col", agg.col_group)
    if not agg.row_group and not agg.col_group:
        r1 = m.row_attrs[0]
        filters = [{"attribute": r1, "values": list(m.order[r1])}]
    spec = _spec(filters, [{"kind": "aggregate", "function": m.table.agg_fun}])
    return spec, {"shown_value": agg.value}


def _group_filters(m: TableModel, axis: str, group: tuple) -> list[dict]:
    if not group:
        return []
    attrs = m.row_attrs if axis == "row" else m.col_attrs
    fl = [{"attribute": attrs[j], "values": [label]} for j, label in enumerate(group)]
    # one level per hierarchical code (the deepest)
    keep = {}
    for j, f in enumerate(fl):
        keep[m.attr_info[f["attribute"]].code] = j
    return [f for j, f in enumerate(fl) if keep[m.attr_info[f["attribute"]].code] == j]


def _adds_across_parts(spec: dict, sel: list[tuple], m: TableModel) -> bool:
    """A sum or average whose rows (within one group) span two values of a non-additive attribute."""
    if not any(s["kind"] == "aggregate" and s["function"] in ADDING_AGGS for s in spec["select"]):
        return False
    for name in m.measure.non_additive:
        if name not in m.rows.index or name in spec.get("group_by", ()):
            continue
        i = m.rows.index[name]
        if len({r[i] for r in sel}) > 1:
            return True
    return False


def _valid(tid: int, spec: dict, answer: list, sel: list[tuple], m: TableModel, extra: dict) -> bool:
    n_selected = len(sel)
    if not answer:
        return False
    # One width per answer: an instance whose answer would hold a level missing in an unbalanced branch
    # (a NULL, left out of the gt string) is redrawn, so every answer row has the width of the SELECT list.
    if any(v is None for row in answer for v in row):
        return False
    if tid == 1:
        return len(answer) == 1
    if tid == 5:
        v = answer[0][0]
        return v is not None and format_number(v) == format_number(extra["shown_value"])
    if any(s["kind"] == "aggregate" for s in spec["select"]):
        if tid != 5 and _adds_across_parts(spec, sel, m):
            return False
        if tid in (4, 7) and n_selected < 2:
            return False
        if any(v is None for row in answer for v in row[-1:]):
            return False
    if tid in (2, 3, 6) and len(answer) < 2 and (len(m.row_paths) > 1 and len(m.col_paths) > 1):
        return False
    if tid in (8, 9, 10, 11) and len(answer) < 2 and len(m.row_paths) > 1:
        return False
    return True


def metadata_for(tid: int, spec: dict, m: TableModel) -> dict[str, Any]:
    row_set, col_set = set(m.row_attrs), set(m.col_attrs)
    all_filters = list(spec["filters"]) + (list(spec["semi_join"]["filters"]) if spec.get("semi_join") else [])
    aggs = [s["function"] for s in spec["select"] if s["kind"] == "aggregate"]
    value_order = [o for o in spec.get("order_by") or [] if o["kind"] == "value"]
    return {
        "template_id": tid,
        "n_row_conditions": sum(1 for f in all_filters if f["attribute"] in row_set),
        "n_col_conditions": sum(1 for f in all_filters if f["attribute"] in col_set),
        "projected_attributes": [s["name"] for s in spec["select"] if s["kind"] == "attribute"],
        "aggregations": aggs,
        "aggregate_in_table": tid == 5,
        "grouping": "local" if spec.get("group_by") else ("global" if aggs else "none"),
        "ordering": value_order[0]["direction"] if value_order else "none",
        "top_k": spec.get("limit"),
        "value_condition": bool(spec.get("value_condition") or spec.get("semi_join")),
    }


METADATA_COLUMNS = ("template_id", "n_row_conditions", "n_col_conditions", "projected_attributes", "aggregations",
                    "aggregate_in_table", "grouping", "ordering", "top_k", "value_condition")


def generate_questions(table: RelationalTable, nl: DomainNL, seed: int,
                       template_ids: Sequence[int] = TEMPLATE_IDS,
                       rows: Optional[Sequence[tuple]] = None, variety: str = "paper",
                       measure: Measure = Measure()) -> list[QuestionInstance]:
    """Questions for one table: at most one per applicable template of Table III (pure, deterministic).

    `variety`: one of QUESTION_VARIETIES (Table III as written, or the wider aggregate choices).
    `rows`: optional plain rows of the table (see TableModel), to skip reading `table.frame`.
    `measure`: the aggregations the table's measure admits and its non-additive attributes.
    """
    if variety not in QUESTION_VARIETIES:
        raise ValueError(f"var question_variety must be one of {', '.join(QUESTION_VARIETIES)}, got {variety!r}")
    rng = random.Random(stable_seed(seed, table.table_id))
    m = TableModel(table, rows, measure)
    out: list[QuestionInstance] = []
    texts: set[str] = set()
    for tid in template_ids:
        if tid == 5 and not table.shown_aggregates:
            continue
        phrasings = nl.phrasings(tid)
        for _ in range(MAX_TRIES):
            drawn = _draw(tid, m, rng, variety)
            if drawn is None:
                if tid in (5, 12, 13, 14, 15):
                    # structural: may still succeed with other random choices, but not for tid 5/14/15
                    if tid == 5 or len(m.row_paths) < 2 or (tid == 15 and len(m.col_paths) < 2):
                        break
                continue
            spec, extra = drawn
            sel = filtered_rows(m.rows, spec)
            answer = evaluate_filtered(m.rows, spec, sel)
            if not _valid(tid, spec, answer, sel, m, extra):
                continue
            ast = spec_to_ast(spec)
            facts = query_facts(ast)  # read once from the AST: for the text and for sql_literals
            tpl = rng.choice(phrasings)
            text = render_question(tpl, ast, nl, facts)
            if text in texts:
                continue
            texts.add(text)
            md = metadata_for(tid, spec, m)
            out.append(QuestionInstance(
                question_id=f"{table.table_id}--q{tid:02d}", table_id=table.table_id, template_id=tid,
                phrasing=tpl.phrasing, sql=ast_to_sql(ast), question=text, spec=spec, metadata=md,
                properties=question_properties(tid, spec, md, m, len(sel)), answer_rows=answer,
                sql_literals=facts.literals))
            break
    return out
