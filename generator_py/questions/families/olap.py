"""OLAP questions on one table: answers at a level of aggregation the table does not show, or below one it does.

* `olap_rollup`: one level of a hierarchy rolled up: the aggregate of each child of a parent (each province
  of a country) and of the parent as a whole, where the table shows no such aggregate of the parent
  (`GROUP BY ROLLUP`).
* `olap_drilldown`: from an aggregate the table shows (a row or column group's total, average, ...) to its
  part at the next header level with the highest value (the lowest, for a minimum), and that value.
* `olap_grouping_sets`: the aggregate for each label of one attribute, for each label of another, and over
  all of them (`GROUP BY GROUPING SETS ((X), (Y), ())`).

DuckDB runs the OLAP grouping; SQLite, which has none, runs the same answer as a union of plain GROUP BYs
(`sqlite_sql`), and a drill-down's highest part as every part equal to the highest (so a tie shows).
"""
from __future__ import annotations

from ..spec import filtered_rows
from ..template_syntax import NLRequirements
from .draws import ADDING_AGGS, EXPR, adds_across_parts
from .sql_text import SqlTextFamily, aggregate, apply, col, deepest_filters, facts_of, number, where


def _groups(m, sel: list[tuple], attribute: str) -> dict:
    """Values of the selected rows per label of `attribute` (None: a row without one)."""
    i, vi = m.rows.index[attribute], m.rows.index["Value"]
    out: dict = {}
    for r in sel:
        out.setdefault(r[i], []).append(r[vi])
    return out


def _adds_across(m, spec: dict, sel: list[tuple], group_by: list[str]) -> bool:
    return adds_across_parts({"select": [{"kind": "aggregate", "function": spec["function"]}], "group_by": group_by},
                             sel, m)


def _header(path: tuple) -> tuple:
    return tuple(x for x in path if x is not None)


def _axis(m, axis: str) -> tuple[list[str], list[tuple]]:
    return (m.row_attrs, m.row_paths) if axis == "row" else (m.col_attrs, m.col_paths)


class _Olap(SqlTextFamily):
    def rows_read(self, spec, m):
        return len(filtered_rows(m.rows, {"filters": spec["filters"]}))


class OlapRollup(_Olap):
    """Each child of a parent and the parent as a whole, where the table shows no aggregate of the parent."""

    family_id = "olap_rollup"
    olap_operation = "roll-up"
    treb_skill, treb_subtask = "TCO", "general_operations"
    nl = NLRequirements(68, (EXPR, ("GROUPBY",)), frozenset(EXPR + ("GROUPBY",)))

    @staticmethod
    def _levels(m) -> list[tuple[str, int]]:
        """(axis, position) of every parent level shown with its child level next to it on the axis, and a
        parent with a child there."""
        out = []
        for axis in ("row", "col"):
            attrs, paths = _axis(m, axis)
            for i in range(len(attrs) - 1):
                a, b = m.attr_info[attrs[i]], m.attr_info[attrs[i + 1]]
                if (a.code == b.code and b.level == a.level + 1
                        and any(p[i] is not None and p[i + 1] is not None for p in paths)):
                    out.append((axis, i))
        return out

    def applicable(self, m):
        return bool(self._levels(m))

    def draw(self, m, rng, variety):
        axis, i = rng.choice(self._levels(m))
        attrs, paths = _axis(m, axis)
        own = rng.choice([p for p in paths if p[i] is not None and p[i + 1] is not None])
        other = rng.choice(m.col_paths if axis == "row" else m.row_paths)
        other_attrs = m.col_attrs if axis == "row" else m.row_attrs
        code = m.attr_info[attrs[i]].code
        labels = {a: x for a, x in zip(attrs, own) if m.attr_info[a].code != code} | {attrs[i]: own[i]}
        labels |= dict(zip(other_attrs, other))
        return {"operation": "rollup", "function": rng.choice(list(m.measure.aggregations)), "axis": axis,
                "filters": deepest_filters(m, labels), "group_by": [attrs[i + 1]],
                "group": list(_header(own[:i + 1])), "other_path": list(_header(other)),
                "last_on_axis": all(m.attr_info[a].code == code for a in attrs[i:])}, {}

    def _parent_shown(self, spec, m) -> bool:
        """The table shows the parent's aggregate with this function over exactly this selection."""
        if m.table.agg_fun != spec["function"] or not spec["last_on_axis"]:
            return False
        group, other = tuple(spec["group"]), tuple(spec["other_path"])
        wanted = (group, other) if spec["axis"] == "row" else (other, group)
        return any((a.row_group, a.col_group) == wanted for a in m.table.shown_aggregates)

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, {"filters": spec["filters"]})
        child = spec["group_by"][0]
        groups = _groups(m, sel, child)
        if len(groups) < 2 or None in groups or _adds_across(m, spec, sel, []) or self._parent_shown(spec, m):
            return None
        fn = spec["function"]
        return ([[label, number(apply(fn, groups[label]))] for label in sorted(groups)]
                + [[None, number(apply(fn, [v for vs in groups.values() for v in vs]))]])

    def sql(self, spec):
        child, agg, w = col(spec["group_by"][0]), aggregate(spec["function"]), where(spec["filters"])
        return f"SELECT {child}, {agg} FROM T{w} GROUP BY ROLLUP ({child}) ORDER BY GROUPING({child}), {child}"

    def sqlite_sql(self, spec):
        child, agg, w = col(spec["group_by"][0]), aggregate(spec["function"]), where(spec["filters"])
        return f"SELECT {child}, {agg} FROM T{w} GROUP BY {child} UNION ALL SELECT NULL, {agg} FROM T{w}"

    def facts(self, spec):
        return facts_of(spec["filters"], aggregates=[spec["function"]], group_by=spec["group_by"])

    def shape(self, spec):
        return {"projected_attributes": list(spec["group_by"]), "aggregations": [spec["function"]],
                "grouping": "local"}


class OlapDrilldown(_Olap):
    """From an aggregate the table shows to its part at the next header level with the highest value."""

    family_id = "olap_drilldown"
    olap_operation = "drill-down"
    treb_skill, treb_subtask = "ADA", "multi_step_retrieval"
    nl = NLRequirements(69, (EXPR, ("OPPATTR",), ("ORDERBYDESC",)), frozenset(EXPR + ("OPPATTR", "ORDERBYDESC")))

    @staticmethod
    def _drillable(m) -> list[tuple]:
        """(aggregate, axis it drills along) of every shown aggregate over one group of an axis at one leaf of
        the other."""
        heads = {axis: [_header(p) for p in _axis(m, axis)[1]] for axis in ("row", "col")}

        def is_group(axis, g):
            return bool(g) and any(len(h) > len(g) and h[:len(g)] == g for h in heads[axis])

        out = []
        for a in m.table.shown_aggregates:
            for axis, group, other, other_axis in (("row", a.row_group, a.col_group, "col"),
                                                   ("col", a.col_group, a.row_group, "row")):
                if is_group(axis, tuple(group)) and tuple(other) in heads[other_axis]:
                    out.append((a, axis))
        return out

    def applicable(self, m):
        return bool(self._drillable(m))

    def draw(self, m, rng, variety):
        shown, axis = rng.choice(self._drillable(m))
        attrs, paths = _axis(m, axis)
        group = tuple(shown.row_group if axis == "row" else shown.col_group)
        other = tuple(shown.col_group if axis == "row" else shown.row_group)
        other_attrs, other_paths = _axis(m, "col" if axis == "row" else "row")
        leaf = next(p for p in other_paths if _header(p) == other)
        labels = dict(zip(attrs[:len(group)], group)) | dict(zip(other_attrs, leaf))
        fn = m.table.agg_fun
        return {"operation": "drilldown", "function": fn, "direction": "asc" if fn == "min" else "desc",
                "filters": deepest_filters(m, labels), "group_by": [attrs[len(group)]],
                "shown_value": shown.value}, {}

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, {"filters": spec["filters"]})
        groups = _groups(m, sel, spec["group_by"][0])
        fn = spec["function"]
        if (len(groups) < 2 or None in groups or _adds_across(m, spec, sel, [])
                or number(apply(fn, [v for vs in groups.values() for v in vs])) != number(spec["shown_value"])):
            return None  # not the aggregate the table shows
        parts = sorted(((number(apply(fn, vs)), apply(fn, vs), label) for label, vs in groups.items()),
                       key=lambda p: p[1], reverse=spec["direction"] == "desc")
        if parts[0][0] == parts[1][0]:
            return None  # two parts tie: no one largest part
        return [[parts[0][2], parts[0][0]]]

    def sql(self, spec):
        child, agg, w = col(spec["group_by"][0]), aggregate(spec["function"]), where(spec["filters"])
        order = "DESC" if spec["direction"] == "desc" else "ASC"
        return f"SELECT {child}, {agg} FROM T{w} GROUP BY {child} ORDER BY {agg} {order} LIMIT 1"

    def sqlite_sql(self, spec):
        child, agg, w = col(spec["group_by"][0]), aggregate(spec["function"]), where(spec["filters"])
        extreme = "MAX" if spec["direction"] == "desc" else "MIN"
        parts = f"SELECT {agg} AS part FROM T{w} GROUP BY {child}"
        return (f"SELECT {child}, {agg} FROM T{w} GROUP BY {child} "
                f"HAVING {agg} = (SELECT {extreme}(part) FROM ({parts}) AS parts)")

    def facts(self, spec):
        return facts_of(spec["filters"], aggregates=[spec["function"]], named=spec["group_by"],
                        order_desc=spec["direction"] == "desc")

    def shape(self, spec):
        return {"projected_attributes": list(spec["group_by"]), "aggregations": [spec["function"]],
                "grouping": "local", "ordering": spec["direction"], "top_k": 1}


class OlapGroupingSets(_Olap):
    """The aggregate for each label of one attribute, for each label of another, and overall."""

    family_id = "olap_grouping_sets"
    olap_operation = "grouping sets"
    treb_skill, treb_subtask = "TCO", "general_operations"
    nl = NLRequirements(70, (EXPR, ("GROUPINGSETS",)), frozenset(EXPR + ("GROUPINGSETS",)))
    MAX_LABELS = 6  # per grouping attribute: the answer stays a short list

    @classmethod
    def _groupable(cls, m, fn: str) -> list[str]:
        """Top-level attributes (independent, or a hierarchy's first level) on every row, 2 to MAX_LABELS labels;
        for a sum or average, not one whose parts do not add up."""
        return [a for a in m.row_attrs + m.col_attrs
                if m.attr_info[a].level == 1 and a in m.complete and 2 <= len(m.order[a]) <= cls.MAX_LABELS
                and not (fn in ADDING_AGGS and a in m.measure.non_additive)]

    def applicable(self, m):
        return len(self._groupable(m, "min")) >= 2

    def draw(self, m, rng, variety):
        fn = rng.choice(list(m.measure.aggregations))
        groupable = self._groupable(m, fn)
        if len(groupable) < 2:
            return None
        x, y = sorted(rng.sample(groupable, 2), key=(m.row_attrs + m.col_attrs).index)
        codes = {m.attr_info[x].code, m.attr_info[y].code}
        labels = {a: v for a, v in zip(m.row_attrs, rng.choice(m.row_paths)) if m.attr_info[a].code not in codes}
        labels |= {a: v for a, v in zip(m.col_attrs, rng.choice(m.col_paths)) if m.attr_info[a].code not in codes}
        return {"operation": "grouping_sets", "function": fn, "filters": deepest_filters(m, labels),
                "group_by": [x, y]}, {}

    def compute(self, spec, m, extra):
        sel = filtered_rows(m.rows, {"filters": spec["filters"]})
        x, y = spec["group_by"]
        by_x, by_y = _groups(m, sel, x), _groups(m, sel, y)
        if min(len(by_x), len(by_y)) < 2 or None in by_x or None in by_y or _adds_across(m, spec, sel, [x, y]):
            return None
        fn = spec["function"]
        return ([[label, None, number(apply(fn, by_x[label]))] for label in sorted(by_x)]
                + [[None, label, number(apply(fn, by_y[label]))] for label in sorted(by_y)]
                + [[None, None, number(apply(fn, [v for vs in by_x.values() for v in vs]))]])

    def sql(self, spec):
        x, y = (col(a) for a in spec["group_by"])
        agg, w = aggregate(spec["function"]), where(spec["filters"])
        return (f"SELECT {x}, {y}, {agg} FROM T{w} GROUP BY GROUPING SETS (({x}), ({y}), ()) "
                f"ORDER BY GROUPING({x}), GROUPING({y}), {x}, {y}")

    def sqlite_sql(self, spec):
        x, y = (col(a) for a in spec["group_by"])
        agg, w = aggregate(spec["function"]), where(spec["filters"])
        return (f"SELECT {x}, NULL, {agg} FROM T{w} GROUP BY {x} UNION ALL SELECT NULL, {y}, {agg} FROM T{w} "
                f"GROUP BY {y} UNION ALL SELECT NULL, NULL, {agg} FROM T{w}")

    def facts(self, spec):
        return facts_of(spec["filters"], aggregates=[spec["function"]], group_by=spec["group_by"])

    def shape(self, spec):
        return {"projected_attributes": list(spec["group_by"]), "aggregations": [spec["function"]],
                "grouping": "local"}


FAMILIES = (OlapRollup(), OlapDrilldown(), OlapGroupingSets())
