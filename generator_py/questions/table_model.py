"""A relational table as the question families see it: header paths, cells and label order, computed once.

A row path is the tuple of row-attribute labels of one data row (outer to inner, None where an
unbalanced branch stops early), a column path likewise. Selecting a set of paths puts, per attribute,
an equality (one label) or an IN list (several labels, in table order) on the attributes that exist for
all chosen paths; inside one hierarchical code only the deepest such level is conditioned (labels there
determine their parents), so that the NL text, which names only the most specific level of a group,
shows every literal of the SQL.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..tables.relational import RelationalTable
from .spec import VALUE, Rows
from .types import Measure


class TableModel:
    """Paths and cells of one relational table, precomputed once."""

    def __init__(self, table: RelationalTable, rows: Optional[Sequence[tuple]] = None, measure: Measure = Measure()):
        """`rows`: the table's rows as plain tuples (attribute labels or None, then the float Value), when the
        caller has them; otherwise `table.plain_rows` if present, else they are read from `table.frame` once."""
        self.table = table
        self.measure = measure
        self.partner: Optional["TableModel"] = None  # the second table of a two-table question (table_pairs.py)
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
        """The conditions that select `paths` of one axis (see the module docstring)."""
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
