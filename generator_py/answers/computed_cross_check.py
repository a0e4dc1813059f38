"""A second, independent computation of the answers of the families that compute their own (suite `treb`,
questions/families/computed.py): numpy on the relational rows as DuckDB holds them (int_relational_rows, read by
generator_py.tables.relational.relational_rows), and the caption and header texts of the table grid (int_table_grid),
never the generator's exact arithmetic, its row tuples or its table model. Each answer is recomputed from the
question's spec alone by its family's `cross_check` (declared beside the family), numbers printed with format_number,
the one number format of the ground truth, an answer of several values joined by ` | ` in its order (a family
answering with a row of labels, such as a header path, may return the row as a list). A multi-step family also
recomputes every step (`cross_check_steps`), and its question agrees only when every intermediate result agrees
with the steps the generator stored (`steps_json`)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd
import pyarrow as pa

from ..questions.families import ALL_FAMILIES
from ..tables.relational import relational_rows

CHECK_COLUMNS = ("question_id", "table_id", "family", "generator_answer", "check_answer", "generator_steps",
                 "check_steps", "agrees")


class Columns:
    """One relational table as numpy columns: an object array per attribute (None where a branch stops
    early), `value` (float); `row_attributes`, `col_attributes` its axes."""

    def __init__(self, row_attributes, col_attributes, labels: list[list], values):
        self.row_attributes, self.col_attributes = list(row_attributes), list(col_attributes)
        names = self.row_attributes + self.col_attributes
        table = np.array(labels, dtype=object).reshape(len(labels), len(names))
        self.attrs = {n: table[:, i] for i, n in enumerate(names)}
        self.value = np.asarray(values, dtype=float)

    def mask(self, filters: list[dict]) -> np.ndarray:
        m = np.ones(len(self.value), dtype=bool)
        for f in filters:
            m &= np.isin(self.attrs[f["attribute"]], [str(v) for v in f["values"]])  # None never matches
        return m

    def values(self, filters) -> np.ndarray:
        return self.value[self.mask(filters)]

    def single(self, filters) -> float:
        v = self.values(filters)
        if len(v) != 1:
            raise ValueError(f"expected one cell, the conditions {filters} select {len(v)}")
        return float(v[0])

    def series(self, filters, keys: list[str]) -> dict:
        m = self.mask(filters)
        cols = [self.attrs[k][m] for k in keys]
        return dict(zip(zip(*cols), self.value[m])) if keys else {}

    def frame(self, filters=(), moved: Optional[dict] = None) -> pd.DataFrame:
        """The selected rows as a pandas frame (a column per attribute, `value`), with a moved cell's value
        (`moved`: its `filters` and new `value`, as an outlier question states them) put in first."""
        value = self.value.copy()
        if moved is not None:
            cell = self.mask(moved["filters"])
            if cell.sum() != 1:
                raise ValueError(f"the moved cell's conditions {moved['filters']} select {int(cell.sum())} cells")
            value[cell] = float(moved["value"])
        m = self.mask(list(filters))
        out = pd.DataFrame({n: a[m] for n, a in self.attrs.items()})
        out["value"] = value[m]
        return out

    @staticmethod
    def labels(row: pd.Series, attributes) -> tuple:
        """A frame row's labels of `attributes`, None where a branch stops early (pandas shows it as NaN)."""
        return tuple(row[a] if isinstance(row[a], str) else None for a in attributes)

    def header_path(self, row: pd.Series) -> list[str]:
        """A frame row's header labels: its row attributes' then its column attributes', NULLs left out."""
        return [x for x in self.labels(row, self.row_attributes + self.col_attributes) if x is not None]

    @staticmethod
    def label_rows(frame: pd.DataFrame, attributes) -> list[tuple]:
        """`labels` of every row of a frame, in order."""
        columns = [frame[a].tolist() for a in attributes]
        return [tuple(x if isinstance(x, str) else None for x in row) for row in zip(*columns)] if columns else \
            [()] * len(frame)

    def header_paths(self, frame: pd.DataFrame) -> list[list[str]]:
        """`header_path` of every row of a frame, in order."""
        return [[x for x in row if x is not None] for row in self.label_rows(frame, self.row_attributes
                                                                             + self.col_attributes)]


def relational_columns(rows: "pd.DataFrame | pa.Table") -> dict[str, Columns]:
    """Columns per table of int_relational_rows."""
    return {tid: Columns(t.row_attributes, t.col_attributes, [r[:-1] for r in t.records], [r[-1] for r in t.records])
            for tid, t in relational_rows(rows).items()}


@dataclass(frozen=True)
class CheckedTable:
    """What a family's `cross_check` reads of one table: its relational columns (None for a table without
    relational rows), its caption and its grid's text by (grid_row, grid_col)."""

    columns: Optional[Columns]
    caption: Optional[str]
    header_text: dict


def answer_text(rows: list[list]) -> str:
    """An answer as a cross-check prints it: its values, row by row, joined by ` | `."""
    return " | ".join(str(v) for row in rows for v in row)


def family_cross_check(questions: pd.DataFrame, rows: "pd.DataFrame | pa.Table", grid: pd.DataFrame) -> pd.DataFrame:
    """Per question of a computing family (question_id, table_id, family, spec_json, py_answer_json): the
    generator's answer (its values joined by ` | `, `answer_text`), the check's, and whether they agree. `rows`: int_relational_rows of their tables;
    `grid`: int_table_grid rows (table_id, grid_row, grid_col, text, caption) of their tables."""
    tables = relational_columns(rows)
    captions = dict(zip(grid["table_id"], grid["caption"]))
    headers: dict[str, dict] = {}
    for tid, r, c, text in zip(grid["table_id"], grid["grid_row"], grid["grid_col"], grid["text"]):
        headers.setdefault(tid, {})[(int(r), int(c))] = text
    out = []
    has_steps = "steps_json" in questions.columns
    for q in questions.sort_values("question_id").itertuples(index=False):
        spec = json.loads(q.spec_json)
        mine = answer_text(json.loads(q.py_answer_json))
        family = ALL_FAMILIES.get(q.family)
        table = CheckedTable(tables.get(q.table_id), captions.get(q.table_id), headers.get(q.table_id, {}))
        theirs = family.cross_check(spec, table)
        if isinstance(theirs, list):  # one row of several labels, checked whole
            theirs = " | ".join(theirs)
        agrees = mine == theirs
        mine_steps = check_steps = None
        steps = q.steps_json if has_steps else None
        if isinstance(steps, str):
            mine_steps = json.dumps([s["result"] for s in json.loads(steps)])
            check_steps = json.dumps(family.cross_check_steps(spec, table))
            agrees = agrees and mine_steps == check_steps
        out.append((q.question_id, q.table_id, q.family, mine, theirs, mine_steps, check_steps, agrees))
    return pd.DataFrame(out, columns=list(CHECK_COLUMNS))
