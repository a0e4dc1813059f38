"""The query spec: evaluation in Python, and its translation to a sqlglot AST / DuckDB SQL text.

Spec shape (JSON-serialisable)::

    {"filters": [{"attribute": "Gender", "values": ["Male"]}, ...],   # conjunctive; 1 value '=', more 'IN'
     "value_condition": {"op": "<" | ">", "threshold": 51.75} | None,
     "semi_join": {"attributes": [...], "filters": [...], "value_condition": {...}} | None,
     "select": [{"kind": "attribute", "name": A} | {"kind": "value"} | {"kind": "aggregate", "function": f}],
     "group_by": [A, ...],
     "order_by": [{"kind": "value" | "attribute", "name": "Value" | A, "direction": "asc" | "desc"}],
     "limit": int | None}

Semantics are SQL's: a filter on an attribute is false on a NULL cell; `(attrs) IN (subquery)` only
matches rows whose attrs are all non-NULL; ascending order puts NULLs last (DuckDB's default, written
NULLS LAST; sqlglot spells it out for dialects whose default differs), and so does descending order.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from sqlglot import exp
from sqlglot.tokens import Tokenizer

VALUE = "Value"
TABLE_NAME = "T"
_SAFE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KEYWORDS = {k.upper() for k in Tokenizer.KEYWORDS}
_QUOTE_CACHE: dict[str, bool] = {}


def needs_quotes(name: str) -> bool:
    """Quote an identifier only when it does not read back as a plain column in DuckDB, SQLite and Postgres."""
    q = _QUOTE_CACHE.get(name)
    if q is None:
        q = not _SAFE.match(name)
        if not q:
            import sqlglot

            for d in ("duckdb", "sqlite", "postgres"):
                try:
                    tree = sqlglot.parse_one(f"SELECT {name} FROM T WHERE {name} = 'x' ORDER BY {name}", read=d)
                    cols = list(tree.find_all(exp.Column))
                    if len(cols) != 3 or any(c.name != name for c in cols):
                        q = True
                except Exception:
                    q = True
        _QUOTE_CACHE[name] = q
    return q


def column(name: str) -> exp.Column:
    return exp.Column(this=exp.Identifier(this=name, quoted=needs_quotes(name)))


def _table() -> exp.Table:
    return exp.Table(this=exp.Identifier(this=TABLE_NAME, quoted=False))


def _number(x: float) -> exp.Literal:
    from ..core.formatting import format_number

    return exp.Literal.number(format_number(x))


_AGG = {"min": exp.Min, "max": exp.Max, "sum": exp.Sum, "avg": exp.Avg}
_CMP = {"<": exp.LT, ">": exp.GT}


def _conditions(filters: Sequence[dict], value_condition: dict | None) -> list[exp.Expression]:
    out: list[exp.Expression] = []
    for f in filters:
        c = column(f["attribute"])
        vals = f["values"]
        if len(vals) == 1:
            out.append(exp.EQ(this=c, expression=exp.Literal.string(str(vals[0]))))
        else:
            out.append(exp.In(this=c, expressions=[exp.Literal.string(str(v)) for v in vals]))
    if value_condition:
        out.append(_CMP[value_condition["op"]](this=column(VALUE), expression=_number(value_condition["threshold"])))
    return out


def _and(conds: list[exp.Expression]) -> exp.Expression | None:
    if not conds:
        return None
    node = conds[0]
    for c in conds[1:]:
        node = exp.And(this=node, expression=c)
    return node


def _select(expressions: list[exp.Expression], where: exp.Expression | None) -> exp.Select:
    sel = exp.Select(expressions=expressions)
    sel.set("from_", exp.From(this=_table()))
    if where is not None:
        sel.set("where", exp.Where(this=where))
    return sel


def spec_to_ast(spec: dict) -> exp.Select:
    """The sqlglot AST of a spec, built with expression constructors (no parsing)."""
    projections: list[exp.Expression] = []
    for s in spec["select"]:
        if s["kind"] == "attribute":
            projections.append(column(s["name"]))
        elif s["kind"] == "value":
            projections.append(column(VALUE))
        else:
            projections.append(_AGG[s["function"]](this=column(VALUE)))
    conds = _conditions(spec["filters"], spec.get("value_condition"))
    sj = spec.get("semi_join")
    if sj:
        attrs = sj["attributes"]
        inner = _select([column(a) for a in attrs], _and(_conditions(sj["filters"], sj.get("value_condition"))))
        lhs = column(attrs[0]) if len(attrs) == 1 else exp.Tuple(expressions=[column(a) for a in attrs])
        conds.append(exp.In(this=lhs, query=exp.Subquery(this=inner)))
    sel = _select(projections, _and(conds))
    if spec.get("group_by"):
        sel.set("group", exp.Group(expressions=[column(a) for a in spec["group_by"]]))
    if spec.get("order_by"):
        ordered = []
        for o in spec["order_by"]:
            desc = o["direction"] == "desc"
            name = VALUE if o["kind"] == "value" else o["name"]
            ordered.append(exp.Ordered(this=column(name), desc=desc, nulls_first=False))
        sel.set("order", exp.Order(expressions=ordered))
    if spec.get("limit") is not None:
        sel.set("limit", exp.Limit(expression=exp.Literal.number(int(spec["limit"]))))
    return sel


_GENERATOR = None


def ast_to_sql(ast: exp.Expression) -> str:
    """DuckDB SQL text of an AST: the text sqlglot's DuckDB generator writes. The node kinds `spec_to_ast`
    builds are written here directly (sqlglot's generator, which runs its dialect's transforms on every SELECT,
    took about a sixth of question generation); any other AST goes through sqlglot's generator (created once
    and reused; the AST is not copied, so serialise it only after everything else has read it)."""
    try:
        return _write(ast)
    except _Unwritten:
        pass
    global _GENERATOR
    if _GENERATOR is None:
        from sqlglot.dialects.dialect import Dialect

        _GENERATOR = Dialect.get_or_raise("duckdb").generator()
    return _GENERATOR.generate(ast, copy=False)


class _Unwritten(Exception):
    """An AST node `_write` does not know: sqlglot's generator writes the query."""


_AGG_SQL = {exp.Min: "MIN", exp.Max: "MAX", exp.Sum: "SUM", exp.Avg: "AVG"}
_CMP_SQL = {exp.EQ: " = ", exp.LT: " < ", exp.GT: " > "}
# the arguments of a SELECT that `_write` writes; a query with any other set falls back to sqlglot
_SELECT_ARGS = frozenset({"expressions", "from_", "where", "group", "order", "limit"})


def _write(node: exp.Expression) -> str:
    t = type(node)
    if t is exp.Column:
        ident = node.this
        if (len(node.args) != 1 and _set_args(node) != {"this"}) or type(ident) is not exp.Identifier:
            raise _Unwritten
        return _identifier(ident)
    if t is exp.Identifier:
        return _identifier(node)
    if t is exp.Literal:
        return "'" + node.this.replace("'", "''") + "'" if node.args.get("is_string") else node.this
    if t is exp.Neg and type(node.this) is exp.Literal and not node.this.args.get("is_string"):
        return "-" + node.this.this  # a negative number (exp.Literal.number makes Neg(literal))
    if t in _CMP_SQL:
        return _write(node.this) + _CMP_SQL[t] + _write(node.expression)
    if t is exp.And:
        return _write(node.this) + " AND " + _write(node.expression)
    if t is exp.In:
        if not _set_args(node) <= {"this", "expressions", "query"}:
            raise _Unwritten
        query = node.args.get("query")
        if query is not None:
            return _write(node.this) + " IN " + _write(query)
        return _write(node.this) + " IN (" + ", ".join(_write(e) for e in node.expressions) + ")"
    if t in _AGG_SQL:
        return _AGG_SQL[t] + "(" + _write(node.this) + ")"
    if t is exp.Tuple:
        return "(" + ", ".join(_write(e) for e in node.expressions) + ")"
    if t is exp.Subquery:
        if _set_args(node) != {"this"}:
            raise _Unwritten
        return "(" + _write(node.this) + ")"
    if t is exp.Select:
        return _write_select(node)
    raise _Unwritten


def _identifier(node: exp.Identifier) -> str:
    name = node.this
    return '"' + name.replace('"', '""') + '"' if node.args.get("quoted") else name


def _set_args(node: exp.Expression) -> set:
    """The names of a node's arguments that are set."""
    return {k for k, v in node.args.items() if v is not None and v != []}


def _write_select(node: exp.Select) -> str:
    args = {k: node.args[k] for k in _set_args(node)}
    if not args.keys() <= _SELECT_ARGS or "from_" not in args:
        raise _Unwritten
    table = args["from_"].this
    if type(table) is not exp.Table or _set_args(table) != {"this"}:
        raise _Unwritten
    sql = "SELECT " + ", ".join(_write(e) for e in node.expressions) + " FROM " + _write(table.this)
    if "where" in args:
        sql += " WHERE " + _write(args["where"].this)
    if "group" in args:
        if _set_args(args["group"]) != {"expressions"}:
            raise _Unwritten
        sql += " GROUP BY " + ", ".join(_write(e) for e in args["group"].expressions)
    if "order" in args:
        if _set_args(args["order"]) != {"expressions"}:
            raise _Unwritten
        sql += " ORDER BY " + ", ".join(_write_ordered(o) for o in args["order"].expressions)
    if "limit" in args:
        if _set_args(args["limit"]) != {"expression"}:
            raise _Unwritten
        sql += " LIMIT " + _write(args["limit"].expression)
    return sql


def _write_ordered(node: exp.Expression) -> str:
    # NULLS LAST is DuckDB's default either way, so sqlglot writes no NULLS clause for it
    if type(node) is not exp.Ordered or node.args.get("nulls_first") or _set_args(node) - {"this", "desc", "nulls_first"}:
        raise _Unwritten
    return _write(node.this) + (" DESC" if node.args.get("desc") else " ASC")


# ---------------------------------------------------------------- evaluation in Python


class Rows:
    """A relational table as a list of tuples (attribute values as text or None, then the float Value)."""

    __slots__ = ("names", "index", "rows")

    def __init__(self, names: Sequence[str], rows: list[tuple]):
        self.names = list(names)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.rows = rows

    @classmethod
    def from_frame(cls, frame, attribute_names: Sequence[str]) -> "Rows":
        cols = list(attribute_names)
        data = []
        attr_cols = [frame[a].tolist() for a in cols]
        vals = frame[VALUE].tolist()
        for i in range(len(vals)):
            rec = []
            for col in attr_cols:
                v = col[i]
                rec.append(None if v is None or (isinstance(v, float) and v != v) else str(v))
            rec.append(float(vals[i]))
            data.append(tuple(rec))
        return cls(cols + [VALUE], data)


def _match(rows: Rows, filters: Sequence[dict], value_condition: dict | None) -> list[tuple]:
    index = rows.index
    checks = [(index[f["attribute"]], {str(v) for v in f["values"]}) for f in filters]
    out = rows.rows
    for i, vs in checks:  # a NULL cell (None) is in no set of labels
        out = [r for r in out if r[i] in vs]
    if value_condition:
        vi = index[VALUE]
        t = float(value_condition["threshold"])
        if value_condition["op"] == "<":
            out = [r for r in out if r[vi] < t]
        else:
            out = [r for r in out if r[vi] > t]
    return out if out is not rows.rows else list(out)


def _agg(fn: str, values: list[float]):
    if not values:
        return None
    if fn == "min":
        return min(values)
    if fn == "max":
        return max(values)
    if fn == "sum":
        return sum(values)
    return sum(values) / len(values)


def _sorted(items: list, key, desc: bool) -> list:
    """Stable sort by key, NULLs last in both directions."""
    present = [x for x in items if key(x) is not None]
    nulls = [x for x in items if key(x) is None]
    return sorted(present, key=key, reverse=desc) + nulls


def filtered_rows(rows: Rows, spec: dict) -> list[tuple]:
    sel = _match(rows, spec["filters"], spec.get("value_condition"))
    sj = spec.get("semi_join")
    if sj:
        idx = [rows.index[a] for a in sj["attributes"]]
        keys = set()
        for r in _match(rows, sj["filters"], sj.get("value_condition")):
            k = tuple(r[i] for i in idx)
            if None not in k:
                keys.add(k)
        sel = [r for r in sel if tuple(r[i] for i in idx) in keys]
    return sel


def evaluate_spec(rows: Rows, spec: dict) -> list[list[Any]]:
    """Evaluate a spec on the table: the result rows, SQL semantics (see module docstring)."""
    return evaluate_filtered(rows, spec, filtered_rows(rows, spec))


def evaluate_filtered(rows: Rows, spec: dict, sel: list[tuple]) -> list[list[Any]]:
    """evaluate_spec on rows already filtered by the spec's WHERE clause."""
    vi = rows.index[VALUE]
    has_agg = any(s["kind"] == "aggregate" for s in spec["select"])
    group_by = spec.get("group_by") or []
    if has_agg or group_by:
        gidx = [rows.index[a] for a in group_by]
        groups: dict[tuple, list[tuple]] = {}
        for r in sel:
            groups.setdefault(tuple(r[i] for i in gidx), []).append(r)
        if not group_by and not groups:
            groups[()] = []
        result = []
        for key, members in groups.items():
            env = dict(zip(group_by, key))
            vals = [m[vi] for m in members]
            out_row = []
            for s in spec["select"]:
                if s["kind"] == "aggregate":
                    out_row.append(_agg(s["function"], vals))
                elif s["kind"] == "attribute":
                    out_row.append(env[s["name"]])
                else:
                    raise ValueError("Value projected in an aggregate query")
            result.append((env, out_row))
        for o in reversed(spec.get("order_by") or []):
            if o["kind"] != "attribute":
                raise ValueError("grouped queries order by their group keys")
            name = o["name"]
            result = _sorted(result, lambda e: e[0][name], o["direction"] == "desc")
        return [r for _, r in result]
    ordered = list(sel)
    for o in reversed(spec.get("order_by") or []):
        i = vi if o["kind"] == "value" else rows.index[o["name"]]
        ordered = _sorted(ordered, lambda r: r[i], o["direction"] == "desc")
    if spec.get("limit") is not None:
        ordered = ordered[: int(spec["limit"])]
    out = []
    for r in ordered:
        row = []
        for s in spec["select"]:
            row.append(r[vi] if s["kind"] == "value" else r[rows.index[s["name"]]])
        out.append(row)
    return out
