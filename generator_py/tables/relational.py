"""The relational table (T_REL): the in-memory table question generation reads, with its HCT facts, and the
one reader of the built relational rows (int_relational_rows) every Python consumer goes through."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple, Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class TableAttribute:
    name: str  # relational column name, an identifier; `_` reads as a space in text
    code: str  # vocabulary code: an independent attribute or a hierarchical group
    level: int  # 1-based level inside its code (always 1 for independent attributes)
    axis: str  # "row" or "col": where the HCT shows it
    depth: int  # 1-based header level on its axis, 1 = outermost


class ShownAggregate(NamedTuple):
    """An aggregate cell the HCT displays (agg_fun of the table over the data cells it covers).

    It covers every data cell whose row path starts with `row_group` and whose column path starts
    with `col_group` (the labels of the row / column attributes, outermost first); an empty tuple
    means the whole axis. A named tuple: a build makes some hundred thousand, read once per table.
    """

    row_group: tuple[str, ...]
    col_group: tuple[str, ...]
    value: float


@dataclass(frozen=True)
class RelationalTable:
    table_id: str
    domain: str
    template_name: str
    value_name: str
    attributes: tuple[TableAttribute, ...]  # row attributes outer->inner, then column attributes
    frame: pd.DataFrame  # one text column per attribute (None where a branch stops early) + float `Value`
    value_is_integer: bool
    agg_fun: str  # sum | avg | min | max
    agg_name: str
    shown_aggregates: tuple[ShownAggregate, ...]

    @property
    def row_attributes(self) -> tuple[TableAttribute, ...]:
        return tuple(a for a in self.attributes if a.axis == "row")

    @property
    def col_attributes(self) -> tuple[TableAttribute, ...]:
        return tuple(a for a in self.attributes if a.axis == "col")


class TableRows(NamedTuple):
    """One table of int_relational_rows: its attribute names per axis and its records in `rel_row` order,
    each the row labels, then the column labels (None where a branch stops early), then the float Value."""

    row_attributes: tuple[str, ...]
    col_attributes: tuple[str, ...]
    records: list[tuple]

    @property
    def names(self) -> list[str]:
        return list(self.row_attributes) + list(self.col_attributes)


def label_text(v, canon: dict) -> Optional[str]:
    """A label as text (None for NULL / NaN), one str object per distinct label in `canon`."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    v = str(v)
    return canon.setdefault(v, v)  # smaller pickles, less memory


def _items(v) -> list:
    """A list cell (a numpy array from DuckDB's .df(), or a list) as a list; .tolist() is far faster."""
    if v is None:
        return []
    return v.tolist() if isinstance(v, np.ndarray) else list(v)


_ROW_COLUMNS = ("table_id", "rel_row", "row_labels", "col_labels", "value")
_NAME_COLUMNS = ("row_attributes", "col_attributes")


def relational_rows(rows: "pd.DataFrame | pa.Table", table_ids: Optional[Iterable[str]] = None,
                    canon: Optional[dict] = None) -> dict[str, TableRows]:
    """The one reader of int_relational_rows (columns table_id, rel_row, row_labels, col_labels, value and,
    when present, row_attributes, col_attributes; a frame, or an Arrow table as DuckDB hands it over, which is
    read without a Python object per cell): table_id -> its TableRows, only `table_ids` when given.
    `canon` (label -> itself) is shared with a caller that interns more labels of the same tables."""
    canon = {} if canon is None else canon
    table = _as_arrow(rows)
    if table_ids is not None:
        table = table.filter(pc.is_in(table["table_id"], value_set=pa.array(list(set(table_ids)), pa.string())))
    has_names = all(c in table.column_names for c in _NAME_COLUMNS)
    if table.num_rows == 0:
        return {}
    order = pc.sort_indices(table.select(["table_id", "rel_row"]),
                            [("table_id", "ascending"), ("rel_row", "ascending")]).to_numpy().tolist()
    tids = table["table_id"].to_pylist()
    values = table["value"].to_numpy().tolist()
    row_labels, row_bounds = label_lists(table["row_labels"], canon)
    col_labels, col_bounds = label_lists(table["col_labels"], canon)
    names = [label_lists(table[c], {}) for c in _NAME_COLUMNS] if has_names else None
    out: dict[str, TableRows] = {}
    start, n = 0, len(order)
    while start < n:
        tid = tids[order[start]]
        end = start + 1
        while end < n and tids[order[end]] == tid:
            end += 1
        first = order[start]
        if names is not None:
            (rn, rb), (cn, cb) = names
            rnames = tuple(str(x) for x in rn[rb[first]:rb[first + 1]])
            cnames = tuple(str(x) for x in cn[cb[first]:cb[first + 1]])
        else:
            rnames = cnames = ()
        records = [(*row_labels[row_bounds[i]:row_bounds[i + 1]], *col_labels[col_bounds[i]:col_bounds[i + 1]],
                    values[i]) for i in order[start:end]]
        out[tid] = TableRows(rnames, cnames, records)
        start = end
    return out


def _as_arrow(rows) -> "pa.Table":
    if isinstance(rows, pa.Table):
        return rows
    columns = [c for c in (*_ROW_COLUMNS, *_NAME_COLUMNS) if c in rows.columns]
    types = {"table_id": pa.string(), "rel_row": pa.int64(), "value": pa.float64()}
    return pa.table({c: pa.array([_items_or_none(v) for v in rows[c].tolist()] if c not in types
                                 else rows[c].tolist(), type=types.get(c, pa.list_(pa.string())))
                     for c in columns})


def _items_or_none(v):
    """A frame's list cell as a list of text or None (NaN is NULL), for Arrow."""
    if v is None:
        return None
    return [None if x is None or (isinstance(x, float) and x != x) else str(x) for x in _items(v)]


def label_lists(column: "pa.ChunkedArray", canon: dict) -> tuple[list, list]:
    """A list<text> Arrow column as one flat Python list of its labels (None for NULL, one str object per distinct
    label, through `canon`) and each row's bounds in it (row i: flat[bounds[i]:bounds[i + 1]])."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if column.null_count:
        column = pc.fill_null(column, pa.scalar([], column.type))
    offsets = column.offsets
    bounds = (pc.subtract(offsets, offsets[0]).to_numpy().tolist()) if len(column) else [0]
    flat = column.values.slice(offsets[0].as_py(), offsets[-1].as_py() - offsets[0].as_py())
    encoded = pc.dictionary_encode(flat.cast(pa.string()))
    labels = [canon.setdefault(x, x) for x in encoded.dictionary.to_pylist()] + [None]
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).tolist()
    return [labels[i] for i in codes], bounds
