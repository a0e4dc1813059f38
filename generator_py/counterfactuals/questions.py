"""The questions of a counterfactual set: the base table's layout-invariant questions, asked of every toggle.

A family is layout-invariant when its answer is its SQL over T_REL and its draw reads no header cell
(`QuestionFamily.layout_invariant`); its questions on the base keep their text, SQL and spec on every layout
of the set. What a question says about the layout is its own per layout: which conditions read row and which
column attributes, the header depths of its attributes, and whether its aggregate is shown
(`aggregate_in_table`, SQL5: the shown aggregate it asks for is shown on some layouts only). The answer is
evaluated again on each layout's own rows and must be the base's (a layout never changes the data; a
difference raises).
"""
from __future__ import annotations

import json
from typing import Iterable, Mapping

import pandas as pd
import pyarrow as pa

from ..core.formatting import format_number
from ..questions.spec import evaluate_filtered, filtered_rows
from ..questions.table_model import TableModel
from ..tables.relational import RelationalTable


def counterfactual_question_id(question_id: str, base_table_id: str, layout_table_id: str) -> str:
    """`<base>--q01` on the toggle `<base>--cf--row_nesting` is `<base>--cf--row_nesting--q01`."""
    if not question_id.startswith(base_table_id + "--"):
        raise ValueError(f"question {question_id!r} is not a question of table {base_table_id!r}")
    return layout_table_id + question_id[len(base_table_id):]


def _answer_text(answer: list) -> list:
    return [[None if v is None else (format_number(v) if isinstance(v, float) else str(v)) for v in row]
            for row in answer]


def layout_questions(base_questions: "pd.DataFrame | pa.Table", layouts: pd.DataFrame,
                     tables: Mapping[str, RelationalTable], families, columns: Iterable[str]) -> "pd.DataFrame | pa.Table":
    """One row per (kept toggle, layout-invariant question of its base), in int_question_instances' `columns`
    plus `original_question_id`; an Arrow table of `base_questions`' column types when it is one (what the
    dbt model hands over), else a frame.

    `base_questions`: int_question_instances rows of the bases; `layouts`: the kept toggles (table_id,
    original_table_id); `tables`: each layout's RelationalTable (its rows and shown aggregates);
    `families`: the registry the questions' families are looked up in."""
    columns = list(columns)
    arrow = isinstance(base_questions, pa.Table)
    records = base_questions.to_pylist() if arrow else base_questions.to_dict("records")
    invariant = {f.family_id for f in (families.get(n) for n in families.names()) if f.layout_invariant}
    by_base: dict[str, list[dict]] = {}
    for q in records:
        if q["family"] in invariant:
            by_base.setdefault(str(q["table_id"]), []).append(q)
    out = []
    for layout_id, base_id in zip(layouts["table_id"].astype(str), layouts["original_table_id"].astype(str)):
        table = tables[layout_id]
        m = TableModel(table)
        shown = {format_number(a.value) for a in table.shown_aggregates}
        for q in by_base.get(base_id, ()):
            family = families.get(q["family"])
            spec = json.loads(q["spec_json"])
            sel = filtered_rows(m.rows, spec)
            answer = evaluate_filtered(m.rows, spec, sel)
            if _answer_text(answer) != _answer_text(json.loads(q["py_answer_json"])):
                raise ValueError(f"layout {layout_id}: question {q['question_id']} answers {answer!r} on the "
                                 f"layout and {q['py_answer_json']} on its base; a layout must keep the data")
            md = family.metadata(spec, m)
            if family.aggregate_in_table:  # shown on this layout, or not
                md["aggregate_in_table"] = bool(answer) and format_number(answer[0][0]) in shown
            row = dict(q)
            row.update(md)
            row.update(family.properties(spec, md, m, len(sel)))
            row["question_id"] = counterfactual_question_id(str(q["question_id"]), base_id, layout_id)
            row["table_id"] = layout_id
            row["original_question_id"] = q["question_id"]
            out.append(row)
    out.sort(key=lambda r: r["question_id"])
    if arrow:
        schema = pa.schema([base_questions.schema.field(c) for c in columns] + [("original_question_id", pa.string())])
        return pa.Table.from_pylist([{c: r[c] for c in schema.names} for r in out], schema=schema)
    return pd.DataFrame(out, columns=columns + ["original_question_id"])
