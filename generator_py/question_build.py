"""From built relational tables (as DuckDB hands them over) to question instances, in parallel."""
from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Iterable

import pandas as pd
import pyarrow as pa

from .questions import generate_questions, load_domain_nl
from .relational import RelationalTable, ShownAggregate, TableAttribute


def relational_tables(instances: pd.DataFrame, rows: pd.DataFrame, aggregates: pd.DataFrame) -> list[RelationalTable]:
    """One RelationalTable per instance; `rows` from int_relational_rows, `aggregates` the shown aggregate cells."""
    rows_by_table = {tid: g for tid, g in rows.groupby("table_id", sort=False)}
    aggs_by_table = {tid: g for tid, g in aggregates.groupby("table_id", sort=False)}
    out = []
    for t in instances.itertuples(index=False):
        attributes = tuple(
            TableAttribute(name, code, int(level), axis, depth + 1)
            for axis, names, codes, levels in (
                ("row", t.row_attributes, t.row_attribute_codes, t.row_attribute_levels),
                ("col", t.col_attributes, t.col_attribute_codes, t.col_attribute_levels))
            for depth, (name, code, level) in enumerate(zip(names, codes, levels)))
        g = rows_by_table[t.table_id].sort_values("rel_row")
        labels = [list(r) + list(c) for r, c in zip(g["row_labels"], g["col_labels"])]
        frame = pd.DataFrame(labels, columns=[a.name for a in attributes])
        frame["Value"] = g["value"].to_numpy()
        shown = tuple(
            ShownAggregate(tuple(a.row_group), tuple(a.col_group), float(a.value))
            for a in aggs_by_table.get(t.table_id, pd.DataFrame(columns=["row_group", "col_group", "value"])).itertuples())
        out.append(RelationalTable(t.table_id, t.domain, t.template_name, t.value_name, attributes, frame,
                                   bool(t.value_is_integer), t.agg_fun, t.agg_name, shown))
    return out


def _generate_chunk(args) -> list[dict]:
    tables, nl_frames, seed = args
    nl_cache = {}
    out = []
    for table in tables:
        key = (table.domain, table.template_name)
        if key not in nl_cache:
            nl_cache[key] = load_domain_nl(*nl_frames, table.domain, table.template_name)
        for q in generate_questions(table, nl_cache[key], seed):
            row = {"question_id": q.question_id, "table_id": q.table_id, "template_id": q.template_id,
                   "phrasing": q.phrasing, "question": q.question, "sql": q.sql,
                   "spec_json": json.dumps(q.spec, sort_keys=True),
                   "py_answer_json": json.dumps(q.answer_rows, default=str)}
            row.update(q.metadata)
            row.update(q.properties)
            out.append(row)
    return out


def generate_all(tables: list[RelationalTable], nl_templates: pd.DataFrame, meanings: pd.DataFrame,
                 attributes: pd.DataFrame, seed: int, workers: int | None = None) -> pa.Table:
    """Questions of every table; order and content do not depend on the number of workers."""
    nl_frames = (nl_templates, meanings, attributes)
    workers = workers or min(2, os.cpu_count() or 1)
    chunks = [tables[i::workers] for i in range(workers)] if workers > 1 else [tables]
    if workers > 1 and len(tables) > 200:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_generate_chunk, [(c, nl_frames, seed) for c in chunks]))
    else:
        parts = [_generate_chunk((tables, nl_frames, seed))]
    rows = sorted((r for part in parts for r in part), key=lambda r: r["question_id"])
    return pa.Table.from_pylist(rows)
