"""The query spec: evaluation in Python, and its DuckDB SQL text.

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

from ..core.formatting import format_number

VALUE = "Value"
TABLE_NAME = "T"
_SAFE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
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


def identifier(name: str) -> str:
    """A column name as the SQL text writes it: double-quoted (inner quotes doubled) only when it needs quotes."""
    return '"' + name.replace('"', '""') + '"' if needs_quotes(name) else name


def _string(value) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def threshold_text(x: float) -> str:
    """A threshold as the SQL text and the question print it: canonical (format_number), a negative one with its
    sign."""
    return format_number(x)


_AGG_SQL = {"min": "MIN", "max": "MAX", "sum": "SUM", "avg": "AVG"}
_CMP_SQL = {"<": " < ", ">": " > "}


def conditions_sql(filters: Sequence[dict], value_condition: dict | None) -> list[str]:
    """The conditions of a WHERE clause as SQL text, in order: one per filter, then the value condition."""
    out = []
    for f in filters:
        c = identifier(f["attribute"])
        vals = f["values"]
        if len(vals) == 1:
            out.append(c + " = " + _string(vals[0]))
        else:
            out.append(c + " IN (" + ", ".join(_string(v) for v in vals) + ")")
    if value_condition:
        out.append(identifier(VALUE) + _CMP_SQL[value_condition["op"]] + threshold_text(value_condition["threshold"]))
    return out


def _select(projections: list[str], conditions: list[str]) -> str:
    sql = "SELECT " + ", ".join(projections) + " FROM " + TABLE_NAME
    return sql + " WHERE " + " AND ".join(conditions) if conditions else sql


def spec_sql(spec: dict) -> str:
    """The DuckDB SQL text of a spec: what sqlglot's DuckDB generator writes for the query, written here
    directly (building sqlglot expressions and generating from them took a quarter of question generation;
    tests/unit/test_spec_sql_text.py holds the two to each other for every spec shape)."""
    projections = []
    for s in spec["select"]:
        if s["kind"] == "attribute":
            projections.append(identifier(s["name"]))
        elif s["kind"] == "value":
            projections.append(identifier(VALUE))
        else:
            projections.append(_AGG_SQL[s["function"]] + "(" + identifier(VALUE) + ")")
    conditions = conditions_sql(spec["filters"], spec.get("value_condition"))
    sj = spec.get("semi_join")
    if sj:
        attrs = sj["attributes"]
        inner = _select([identifier(a) for a in attrs], conditions_sql(sj["filters"], sj.get("value_condition")))
        lhs = identifier(attrs[0]) if len(attrs) == 1 else "(" + ", ".join(identifier(a) for a in attrs) + ")"
        conditions.append(lhs + " IN (" + inner + ")")
    sql = _select(projections, conditions)
    if spec.get("group_by"):
        sql += " GROUP BY " + ", ".join(identifier(a) for a in spec["group_by"])
    if spec.get("order_by"):
        # NULLS LAST is DuckDB's default either way, so no NULLS clause is written
        sql += " ORDER BY " + ", ".join(identifier(VALUE if o["kind"] == "value" else o["name"])
                                        + (" DESC" if o["direction"] == "desc" else " ASC") for o in spec["order_by"])
    if spec.get("limit") is not None:
        sql += " LIMIT " + str(int(spec["limit"]))
    return sql


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
