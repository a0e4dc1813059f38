"""A second, independent computation of the answers of the families that compute their own (suite `treb`,
questions/families/computed.py): numpy on the relational rows as DuckDB holds them (int_relational_rows, read by
generator_py.tables.relational.relational_rows), and the caption and header texts of the table grid (int_table_grid),
never the generator's exact arithmetic, its row tuples or its table model. Each answer is recomputed from the
question's spec alone by its family's `cross_check` (declared beside the family), numbers printed with format_number,
the one number format of the ground truth, an answer of several values joined by ` | ` in its order."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd
import pyarrow as pa

from ..questions.families import ALL_FAMILIES
from ..tables.relational import relational_rows

CHECK_COLUMNS = ("question_id", "table_id", "family", "generator_answer", "check_answer", "agrees")


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
    for q in questions.sort_values("question_id").itertuples(index=False):
        spec = json.loads(q.spec_json)
        mine = answer_text(json.loads(q.py_answer_json))
        table = CheckedTable(tables.get(q.table_id), captions.get(q.table_id), headers.get(q.table_id, {}))
        theirs = ALL_FAMILIES.get(q.family).cross_check(spec, table)
        out.append((q.question_id, q.table_id, q.family, mine, theirs, mine == theirs))
    return pd.DataFrame(out, columns=list(CHECK_COLUMNS))
