"""Assemble benchmark_choice_items: one row per two-option item, from questions and table grids."""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from operator import itemgetter
from typing import Iterable, Optional

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..dbt_glue.relations import frame_of, rows_where_in

from ..questions.spec import Rows, evaluate_filtered
from ..tables.relational import relational_rows as read_relational_rows
from ..core.rng import rng_for
from .choice_table import ChoiceTable, ValueCell, canonical_text, text_grids
from .content_variants import CONTENT_VARIANTS, grid_csv, variant_grid
from .option_text import answer_option
from .positions import position_question
from .probes import PROBES, GridView, make_probe, render
from .pseudo_table import pseudo_relevant_table
from .statements import STATEMENT_TEMPLATES, StatementWriter
from .strategies import STRATEGIES, STRATEGY_FUNCTIONS, Distractor, Question

QUESTION_SUBSETS = ("b_tis", "su_tis", "m_tis")
SUBSETS = QUESTION_SUBSETS + PROBES
# the selection (1, 2, 3, 6, 12, 13) and aggregation (4, 5, 7-11) templates: answers that are value sets
CHOICE_TEMPLATES = frozenset(range(1, 14))
# strategies that re-run the question's spec with one change
SPEC_STRATEGIES = frozenset({"sibling_condition", "wrong_function"})

COLUMNS = ("item_id", "subset", "table_id", "other_table_id", "other_table_position", "source_question_id",
           "template_id", "question", "option_a", "option_b", "correct_option", "distractor_strategy",
           "distractor_provenance", "target_row", "target_col", "anchor_row", "anchor_col", "wrong_row",
           "wrong_col", "position_axis", "content_variant", "table_csv", "option_form")
OPTION_FORMS = ("answer", "statement")


def _list(v) -> tuple:
    """A list cell (a numpy array from DuckDB's .df()) as a tuple; through .tolist(), five times faster."""
    if v is None:
        return ()
    return tuple(v.tolist()) if isinstance(v, np.ndarray) else tuple(v)


def _pylist(series: pd.Series) -> list:
    """A column as a Python list; text columns through numpy (iterating an Arrow string column is slow)."""
    if pd.api.types.is_string_dtype(series.dtype) and not pd.api.types.is_object_dtype(series.dtype):
        return series.to_numpy(dtype=object).tolist()
    return series.tolist()


def _columns(frame: pd.DataFrame, *names: str) -> list:
    """Columns as Python lists, zipped (row-wise access to list-typed columns is slow in pandas)."""
    return list(zip(*(_pylist(frame[n]) for n in names)))


def _records(rows_by_table: dict, table_id: str) -> list:
    table = rows_by_table.get(table_id)
    return [] if table is None else table.records


def choice_tables(instances: pd.DataFrame, relational_rows, cells: pd.DataFrame,
                  grids: dict, table_ids: Optional[set] = None) -> dict[str, ChoiceTable]:
    """Every synthetic table as a ChoiceTable (relational rows, value cells, its grid of cell texts);
    `relational_rows` a frame or an Arrow table, read for `table_ids` only when given."""
    rows_by_table = read_relational_rows(relational_rows, table_ids)
    cells_by_table: dict = defaultdict(dict)
    new = tuple.__new__  # ValueCell's fields in order, without the named tuple's argument binding (half a million)
    for table_id, row, col, role, value, row_group, col_group in _columns(
            cells, "table_id", "grid_row", "grid_col", "role", "value", "row_group", "col_group"):
        if role in ("data", "aggregate") and value is not None and value == value:
            row, col, value = int(row), int(col), float(value)
            cells_by_table[table_id][(row, col)] = new(ValueCell, (row, col, role, value, _list(row_group),
                                                                   _list(col_group), canonical_text(value)))
    out = {}
    for table_id, domain, template_name, variant_id, row_attributes, col_attributes in sorted(_columns(
            instances, "table_id", "domain", "template_name", "variant_id", "row_attributes", "col_attributes")):
        if table_id not in grids:
            raise ValueError(f"table {table_id}: no cells in the grid (intermediate.int_table_grid)")
        row_attrs, col_attrs = _list(row_attributes), _list(col_attributes)
        out[table_id] = ChoiceTable(
            table_id=table_id, template_key=f"{domain}--{template_name}--v{int(variant_id):04d}",
            row_attributes=row_attrs, col_attributes=col_attrs,
            rows=Rows(list(row_attrs) + list(col_attrs) + ["Value"], _records(rows_by_table, table_id)),
            cells=cells_by_table[table_id], grid=grids[table_id], domain=domain, template_name=template_name)
    return out


def _question(r) -> Question:
    try:
        spec = json.loads(r.spec_json)
        answer_rows = json.loads(r.answer_rows)
    except (TypeError, ValueError) as e:
        raise ValueError(f"question {r.question_id}: unreadable spec_json or answer_rows ({e})") from e
    return Question(r.question_id, int(r.template_id), spec, answer_rows, r.answer_gt)


def choose_distractor(q: Question, table: ChoiceTable, seed: int) -> Optional[Distractor]:
    """The first strategy that applies, trying them from a seeded starting point (so all are used)."""
    spec_ok = None
    rng = rng_for(seed, "choice_distractor", q.question_id)
    start = rng.randrange(len(STRATEGIES))
    for k in range(len(STRATEGIES)):
        name = STRATEGIES[(start + k) % len(STRATEGIES)]
        if name in SPEC_STRATEGIES:
            if spec_ok is None:
                spec_ok = answer_option(evaluate_filtered(table.rows, q.spec, q.selected(table))) == q.correct
            if not spec_ok:
                continue  # the Python reading of the spec must reproduce the answer before a change to it counts
        d = STRATEGY_FUNCTIONS[name](q, table, rng)
        if d is not None:
            return d
    return None


def _order_bit(seed: int, item_id: str) -> int:
    """rng.stable_int(seed, "choice_order", item_id) % 2, without its generic joining (called per item)."""
    return hashlib.sha256(f"{seed}|choice_order|{item_id}".encode("utf-8")).digest()[7] & 1


def _options(item_id: str, right: str, wrong: str, seed: int) -> tuple:
    """(option_a, option_b, correct_option): which one is right is a seeded draw per item."""
    if _order_bit(seed, item_id) == 0:
        return right, wrong, "A"
    return wrong, right, "B"


_INDEX = {c: i for i, c in enumerate(COLUMNS)}
_EMPTY_ROW = tuple("answer" if c == "option_form" else None for c in COLUMNS)


def _row(**values) -> tuple:
    """One item as a tuple in COLUMNS order (a quarter of a million of them: no dicts)."""
    out = list(_EMPTY_ROW)
    for k, v in values.items():
        out[_INDEX[k]] = v
    return tuple(out)


def as_dicts(rows: Iterable[tuple]) -> list[dict]:
    return [dict(zip(COLUMNS, r)) for r in rows]


def _question_rows(questions: pd.DataFrame, tables: dict[str, ChoiceTable], seed: int,
                   statements: Optional[StatementWriter] = None) -> list[tuple]:
    by_template: dict = defaultdict(list)
    for t in sorted(tables.values(), key=lambda t: t.table_id):
        by_template[t.template_key].append(t)  # in table_id order: what pseudo_relevant_table sorts by
    out = []
    for r in questions.sort_values("question_id").itertuples(index=False):
        if int(r.template_id) not in CHOICE_TEMPLATES or r.table_id not in tables or r.answer_gt is None:
            continue
        q, table = _question(r), tables[r.table_id]
        d = choose_distractor(q, table, seed)
        if d is None:
            continue
        common = dict(table_id=r.table_id, source_question_id=q.question_id, template_id=q.template_id,
                      distractor_strategy=d.strategy, distractor_provenance=d.provenance, content_variant="original")
        item_id = f"b_tis--{q.question_id}"
        out.append(_row(item_id=item_id, subset="b_tis", question=r.question,
                        **_option_fields(item_id, q.correct, d.option, seed), **common))
        if statements is not None and q.template_id in STATEMENT_TEMPLATES:
            said = statements.sentences(table.domain, table.template_name, q.spec, (q.correct, d.option))
            if said is not None:
                item_id = f"b_tis--{q.question_id}--statement"
                out.append(_row(item_id=item_id, subset="b_tis", question=r.question,
                                **_option_fields(item_id, said[0], said[1], seed), **dict(common, option_form="statement")))
        pq = position_question(q, table)
        if pq is not None:
            item_id = f"su_tis--{q.question_id}"
            out.append(_row(item_id=item_id, subset="su_tis", question=pq.question, position_axis=pq.axis,
                            **_option_fields(item_id, q.correct, d.option, seed), **common))
        other = pseudo_relevant_table(q.spec, table, by_template[table.template_key],
                                      rng_for(seed, "choice_pseudo_table", q.question_id))
        if other is not None:
            item_id = f"m_tis--{q.question_id}"
            out.append(_row(item_id=item_id, subset="m_tis", question=r.question, other_table_id=other.table_id,
                            other_table_position=other.position,
                            **_option_fields(item_id, q.correct, d.option, seed), **common))
    return out


def _option_fields(item_id: str, right: str, wrong: str, seed: int) -> dict:
    a, b, correct = _options(item_id, right, wrong, seed)
    return {"option_a": a, "option_b": b, "correct_option": correct}


def question_items(questions: pd.DataFrame, tables: dict[str, ChoiceTable], seed: int,
                   statements: Optional[StatementWriter] = None) -> list[dict]:
    """b_tis, su_tis and m_tis items of the questions, as dicts by column; with `statements`, the lookups'
    b_tis items once more with both options as sentences (option_form `statement`)."""
    return as_dicts(_question_rows(questions, tables, seed, statements))


def _probe_rows(grids: dict[str, list], seed: int) -> list[tuple]:
    out = []
    for table_id in sorted(grids):
        grid = grids[table_id]
        variants = {v: variant_grid(grid, v, rng_for(seed, "choice_content", table_id, v)) for v in CONTENT_VARIANTS}
        views = {v: GridView(g) for v, g in variants.items()}
        csvs: dict = {}
        for kind in PROBES:
            probe = make_probe(kind, views["original"], rng_for(seed, "choice_probe", table_id, kind))
            if probe is None:
                continue
            anchor = probe.anchor or (None, None)
            for variant, vgrid in variants.items():
                question, right, wrong = render(probe, views[variant])
                item_id = f"{kind}--{table_id}--{variant}"
                if variant != "original" and variant not in csvs:
                    csvs[variant] = grid_csv(vgrid)
                out.append(_row(item_id=item_id, subset=kind, table_id=table_id, question=question,
                                distractor_strategy="nearby_position",
                                distractor_provenance=probe.direction,
                                target_row=probe.target[0], target_col=probe.target[1],
                                anchor_row=anchor[0], anchor_col=anchor[1],
                                wrong_row=probe.wrong[0], wrong_col=probe.wrong[1], content_variant=variant,
                                table_csv=csvs.get(variant),
                                **_option_fields(item_id, right, wrong, seed)))
    return out


def probe_items(grids: dict[str, list], seed: int) -> list[dict]:
    """One probe of each kind per table, asked on each content variant of its grid, as dicts by column."""
    return as_dicts(_probe_rows(grids, seed))


INTEGER_COLUMNS = ("template_id", "target_row", "target_col", "anchor_row", "anchor_col", "wrong_row", "wrong_col")
# The mart's column types: text but for the positions and the template (BIGINT), whichever values a part holds
ITEMS_SCHEMA = pa.schema([(c, pa.int64() if c in INTEGER_COLUMNS else pa.string()) for c in COLUMNS])


def items_table(rows: Iterable[tuple]) -> pa.Table:
    """Rows as tuples in COLUMNS order -> the mart's rows as an Arrow table, by item_id (an Arrow table holds
    the texts in a few buffers, not a Python object each, and a worker sends it back as those buffers)."""
    rows = sorted(rows, key=itemgetter(0))  # item_ids are unique: the order a stable sort by item_id gives
    columns = list(zip(*rows)) if rows else [() for _ in COLUMNS]
    del rows
    return pa.Table.from_arrays([pa.array(values, type=field.type) for values, field in zip(columns, ITEMS_SCHEMA)],
                                schema=ITEMS_SCHEMA)


def _as_frame(data, table_ids: set) -> pd.DataFrame:
    """The rows of these tables as a frame with the column types DuckDB's `.df()` gives: `data` is a frame,
    or an Arrow table (what the model reads, a few buffers that forked workers share untouched)."""
    if isinstance(data, pd.DataFrame):
        return data[data["table_id"].isin(table_ids)]
    return frame_of(rows_where_in(data, "table_id", table_ids))


def _items_of(table_ids: set, inputs: dict, seed: int) -> list[tuple]:
    """The items of these tables (whole individual templates, so m_tis finds its candidates among them)."""
    grids = text_grids(_as_frame(inputs["grid"], table_ids))
    relational = inputs["relational_rows"]
    relational = relational if isinstance(relational, pa.Table) else _as_frame(relational, table_ids)
    tables = choice_tables(_as_frame(inputs["instances"], table_ids), relational,
                           _as_frame(inputs["cells"], table_ids), grids, table_ids)
    writer = None
    if inputs.get("statements") is not None:
        writer = StatementWriter(inputs["statements"], inputs["attributes"])
    return _question_rows(_as_frame(inputs["questions"], table_ids), tables, seed, writer) + _probe_rows(grids, seed)


_SHARED: dict = {}  # the inputs, inherited by forked workers (never pickled)


def _work(table_ids: list) -> pa.Table:
    return _stored_order(items_table(_items_of(set(table_ids), _SHARED["inputs"], _SHARED["seed"])))


def _chunks(instances: pd.DataFrame, table_ids: list, n: int) -> list[list]:
    """Table ids in about n chunks of whole individual templates, balanced by table count. The templates are
    taken in the order of their first id, so when no two templates' ids interleave, each chunk is a run of
    consecutive ids and the chunks follow each other in id order."""
    key_of = {t: f"{d}--{n_}--{v}" for t, d, n_, v in
              zip(instances["table_id"], instances["domain"], instances["template_name"], instances["variant_id"])}
    groups: dict = defaultdict(list)
    for t in sorted(table_ids):
        groups[key_of.get(t, t)].append(t)
    size = -(-len(table_ids) // n)
    out, chunk = [], []
    for group in sorted(groups.values(), key=lambda g: g[0]):
        if chunk and len(chunk) + len(group) > size:
            out.append(chunk)
            chunk = []
        chunk.extend(group)
    return out + [chunk] if chunk else out


def _in_id_order(chunks: list[list]) -> bool:
    """Whether the chunks' ids, chunk after chunk, are in sorted order (their parts then concatenate in the
    stored order without sorting them together)."""
    ids = [t for c in chunks for t in c]
    return all(a < b for a, b in zip(ids, ids[1:]))


# Tables per chunk at most: what one worker holds at a time (its tables' inputs as Python objects and their
# items) is bounded by it, not by the benchmark's size
CHUNK_TABLES = 300


def build_choice_items(questions, instances, relational_rows, cells, grid, seed: int,
                       workers: Optional[int] = None, statements: Optional[pd.DataFrame] = None,
                       attributes: Optional[pd.DataFrame] = None) -> pa.Table:
    """All items (the mart's rows, as an Arrow table in `_stored_order`): b_tis, su_tis, m_tis from the synthetic
    questions; the six probes on every table.

    The inputs are frames or Arrow tables (read so, they stay a few buffers that forked workers share; each
    worker turns only its chunk's rows into Python objects). `grid`: the anchored cells of every table
    (intermediate.int_table_grid: table_id, grid_row, grid_col, rowspan, colspan, text), synthetic and real;
    probe positions are its positions, which are those of benchmark_tables.csv (the CSV renderer writes each
    anchor's text at its anchor, spanned positions empty).
    `statements` (seed choice_statements) with `attributes` (stg_domain_attributes): the lookups' b_tis items
    also in statement form; without them, answers only.
    The content depends neither on the number of workers (forked processes) nor on the chunks (whole
    individual templates)."""
    if statements is not None and attributes is None:
        raise ValueError("build_choice_items: statements need the domain attributes (stg_domain_attributes)")
    if isinstance(instances, pa.Table):
        instances = frame_of(instances)  # a row per table: small
    inputs = dict(questions=questions, instances=instances, relational_rows=relational_rows, cells=cells, grid=grid,
                  statements=statements, attributes=attributes)
    ids = grid["table_id"]
    table_ids = sorted(set(ids.to_pylist() if isinstance(ids, pa.ChunkedArray) else _pylist(ids)))
    workers = workers or min(2, os.cpu_count() or 1)
    if workers < 2 or len(table_ids) < 200 or "fork" not in multiprocessing.get_all_start_methods():
        return _stored_order(items_table(_items_of(set(table_ids), inputs, seed)))
    chunks = _chunks(instances, table_ids, max(workers * 3, -(-len(table_ids) // CHUNK_TABLES)))
    _SHARED.update(inputs=inputs, seed=seed)
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            parts = list(pool.map(_work, chunks))  # each part in the stored order
    finally:
        _SHARED.clear()
    table = pa.concat_tables(parts)
    del parts
    # parts of consecutive ids are the stored order as they come: no sorted copy of every item
    return table if _in_id_order(chunks) else _stored_order(table)


def _stored_order(items: pa.Table) -> pa.Table:
    """The items by table, content variant, then item_id: a table variant's six probes, which carry the same
    table_csv, lie side by side, so DuckDB stores that text once (its dictionary is per block), not six
    times among other tables' (a fifth of the mart's size in item_id order)."""
    return items.take(pc.sort_indices(items, [("table_id", "ascending"), ("content_variant", "ascending"),
                                              ("item_id", "ascending")]))
