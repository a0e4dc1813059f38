"""From built relational tables (as DuckDB hands them over) to question instances, in parallel.

Tables travel as plain Python rows: `relational_table_stream` reads the relational rows, a part of whole
tables at a time, into tuples (no per-table pandas frame is built unless something reads `.frame`), and
`question_parts` sends workers compact tuples, a run of tables at a time. Question rows come back as Arrow
tables, made a batch at a time, one part per run (`dbt_glue.relations.landed` keeps them or writes them into
DuckDB as they come). Output does not depend on the number of workers: every table draws from its own seeded
RNG and rows are sorted by question_id.
"""
from __future__ import annotations

import gc
import itertools
import json
import os
from contextlib import contextmanager
from typing import Iterable, Iterator, Optional

import pandas as pd
import pyarrow as pa

from . import (FAMILIES, METADATA_COLUMNS, QUESTION_PROPERTY_COLUMNS, FamilyRegistry, Measure,
                        generate_questions, load_domain_nl)
from .spec import VALUE, Rows
from ..core.child_process import streamed_pool_map
from .table_pairs import partners_of_tables
from ..tables.relational import RelationalTable, ShownAggregate, TableAttribute, label_lists, relational_rows
from ..vocabulary.templates import load_templates
from ..vocabulary.domains import load_domains
from ..vocabulary.knowledge import domain_knowledge, load_groupings, load_units

# columns of int_question_instances, in order
COLUMNS = (("question_id", "table_id", "template_id", "family", "family_variant", "phrasing", "question", "sql",
            "sql_literals", "spec_json", "py_answer_json") + tuple(c for c in METADATA_COLUMNS if c != "template_id")
           + QUESTION_PROPERTY_COLUMNS + ("kind", "suite", "answer_type", "hides_caption", "blank_grid_row",
                                          "blank_grid_col", "treb_skill", "treb_subtask", "treb_metric",
                                          "grid_change", "steps_json", "tables", "table_roles",
                                          "table_conditions_json", "paraphrases_json"))
_N_FIXED = 11  # columns before the metadata

_FIELDS = ("table_id", "domain", "template_name", "value_name", "attributes", "value_is_integer", "agg_fun",
           "agg_name", "shown_aggregates")


class PlainRelationalTable(RelationalTable):
    """A RelationalTable holding its rows as plain tuples (`plain_rows`: attribute labels or None in the order
    of `attributes`, then the float Value); the pandas `frame` is built on first access only."""

    def __init__(self, table_id: str, domain: str, template_name: str, value_name: str,
                 attributes: tuple, plain_rows: list, value_is_integer: bool, agg_fun: str, agg_name: str,
                 shown_aggregates: tuple, header_cells: tuple = ()):
        object.__setattr__(self, "header_cells", header_cells)  # (grid_row, grid_col, role, text): naming
        for k, v in zip(_FIELDS, (table_id, domain, template_name, value_name, attributes, value_is_integer,
                                  agg_fun, agg_name, shown_aggregates)):
            object.__setattr__(self, k, v)
        object.__setattr__(self, "plain_rows", plain_rows)

    @property
    def frame(self) -> pd.DataFrame:  # type: ignore[override]
        f = self.__dict__.get("_frame")
        if f is None:
            names = [a.name for a in self.attributes]
            f = pd.DataFrame([r[:-1] for r in self.plain_rows], columns=names)
            f[VALUE] = [r[-1] for r in self.plain_rows]
            object.__setattr__(self, "_frame", f)
        return f


def relational_tables(instances: pd.DataFrame, rows: "pd.DataFrame | pa.Table", aggregates: "pd.DataFrame | pa.Table",
                      header_cells: Optional[pd.DataFrame] = None) -> list[RelationalTable]:
    """One RelationalTable per instance, in table id order; `rows` from int_relational_rows, `aggregates` the
    shown aggregate cells (frames, or Arrow tables as DuckDB hands them over), `header_cells` (optional:
    table_id, grid_row, grid_col, role, text of the header cells of int_hct_cells) what the header naming
    family asks about. `relational_table_stream` over all the rows at once."""
    return list(relational_table_stream(instances, [rows], aggregates, header_cells))


def relational_table_stream(instances: pd.DataFrame, row_parts: Iterable["pd.DataFrame | pa.Table"],
                            aggregates: "pd.DataFrame | pa.Table | Iterable",
                            header_cells: "pd.DataFrame | pa.Table | Iterable | None" = None) -> Iterator[RelationalTable]:
    """One RelationalTable per instance, in table id order, made as `row_parts` are read: parts of
    int_relational_rows each holding its tables whole, the parts in table id order (one part: any order), so
    a caller holds the tables of a part, not of the build. An instance without rows has no records.

    `aggregates` (table_id, row_group, col_group, value) and `header_cells` (table_id, grid_row, grid_col, role,
    text) are one frame or Arrow table, or parts of them read the same way (each holding its tables whole, in
    table id order): a part is read when the tables reach it, so a 10x build never holds every table's.
    Shown aggregates of a table are sorted by (row_group, col_group), and its header cells by grid position, so
    that the result does not depend on the order in which DuckDB returns them (a DISTINCT query has none).
    """
    canon: dict = {}  # one str object per distinct label: smaller pickles, less memory
    shown_aggregates = _TablePieces(aggregates, lambda part: _shown_aggregates_by_table(part, canon))
    header_tuples = _TablePieces(header_cells, _header_tuples_by_table)
    cols = ["table_id", "domain", "template_name", "value_name", "value_is_integer", "agg_fun", "agg_name",
            "row_attributes", "row_attribute_codes", "row_attribute_levels",
            "col_attributes", "col_attribute_codes", "col_attribute_levels"]
    described = {str(r[0]): r for r in zip(*(instances[c].tolist() for c in cols))}

    def table(tid: str, records: list) -> PlainRelationalTable:
        (_, domain, template_name, value_name, value_is_integer, agg_fun, agg_name,
         rnames, rcodes, rlevels, cnames, ccodes, clevels) = described[tid]
        attributes = tuple(
            TableAttribute(str(name), str(code), int(level), axis, depth + 1)
            for axis, names, codes, levels in (("row", rnames, rcodes, rlevels), ("col", cnames, ccodes, clevels))
            for depth, (name, code, level) in enumerate(zip(names, codes, levels)))
        return PlainRelationalTable(tid, str(domain), str(template_name), str(value_name), attributes, records,
                                    bool(value_is_integer), str(agg_fun), str(agg_name), shown_aggregates.of(tid),
                                    header_tuples.of(tid))

    ids = sorted(described)
    i = 0
    read: Optional[str] = None  # the last table of the parts read so far
    for part in row_parts:
        by_table = relational_rows(part, canon=canon)
        for tid in sorted(by_table):
            if read is not None and tid <= read:
                raise ValueError(f"int_relational_rows: table {tid!r} comes in a part after table {read!r}: each "
                                 "part must hold its tables whole, the parts in table id order")
            read = tid
            while i < len(ids) and ids[i] < tid:  # instances without rows
                yield table(ids[i], [])
                i += 1
            if i < len(ids) and ids[i] == tid:
                yield table(tid, by_table[tid].records)
                i += 1
        del by_table
    while i < len(ids):
        yield table(ids[i], [])
        i += 1


class _TablePieces:
    """What a relation holds for each table (`make(part)`: table id -> its piece), read from parts that each
    hold their tables whole, in table id order (or one frame or Arrow table: one part), as the tables are asked
    for in table id order; a table the parts lack has ()."""

    def __init__(self, parts, make):
        if parts is None:
            parts = ()
        elif isinstance(parts, (pa.Table, pd.DataFrame)):
            parts = (parts,)
        self._parts = iter(parts)
        self._make = make
        self._pieces: dict = {}
        self._last: Optional[str] = None  # the last table of the part read, None before the first
        self._done = False

    def of(self, tid: str) -> tuple:
        while not self._done and (self._last is None or tid > self._last):
            part = next(self._parts, None)
            if part is None:
                self._done = True
                break
            pieces = self._make(part)
            if pieces:
                self._pieces, self._last = pieces, max(pieces)
        return self._pieces.pop(tid, ())


def _shown_aggregates_by_table(part: "pd.DataFrame | pa.Table", canon: dict) -> dict[str, tuple]:
    """Each table's shown aggregates, sorted."""
    if not isinstance(part, pa.Table):
        part = pa.table({"table_id": pa.array(part["table_id"].tolist(), pa.string()),
                         "row_group": pa.array([list(x) for x in part["row_group"]], pa.list_(pa.string())),
                         "col_group": pa.array([list(x) for x in part["col_group"]], pa.list_(pa.string())),
                         "value": pa.array(part["value"].tolist(), pa.float64())})
    row_groups, row_bounds = label_lists(part["row_group"], canon)
    col_groups, col_bounds = label_lists(part["col_group"], canon)
    # (row_group, col_group, value) of each row: a ShownAggregate's fields, whose tuple order is the sort order
    items = [(tuple(row_groups[r0:r1]), tuple(col_groups[c0:c1]), value) for (r0, r1), (c0, c1), value
             in zip(itertools.pairwise(row_bounds), itertools.pairwise(col_bounds), part["value"].to_pylist())]
    return {tid: tuple(itertools.starmap(ShownAggregate, sorted(map(items.__getitem__, rows))))
            for tid, rows in _rows_by_key(part["table_id"].to_pylist()).items()}


def _header_tuples_by_table(part: "pd.DataFrame | pa.Table") -> dict[str, tuple]:
    """Each table's header cells as (grid_row, grid_col, role, text), sorted."""
    keys, grid_rows, grid_cols, roles, texts = (part[k].to_pylist() if isinstance(part, pa.Table) else part[k].tolist()
                                                for k in ("table_id", "grid_row", "grid_col", "role", "text"))
    return {tid: tuple(sorted((int(grid_rows[i]), int(grid_cols[i]), str(roles[i]), str(texts[i])) for i in rows))
            for tid, rows in _rows_by_key(keys).items()}


def _rows_by_key(keys: list) -> dict:
    """key -> the numbers of the rows holding it, in row order."""
    at: dict = {}
    for i, k in enumerate(keys):
        at.setdefault(k, []).append(i)
    return at


# ------------------------------------------------------------------ generation


def template_measures(attributes: pd.DataFrame, values: pd.DataFrame, ranges: pd.DataFrame,
                      templates: pd.DataFrame, groupings: Optional[pd.DataFrame] = None,
                      units: Optional[pd.DataFrame] = None) -> dict[tuple[str, str], Measure]:
    """(domain, template_name) -> what the vocabulary says about the template's measure; with `groupings` and
    `units` (the value_groupings and measure_units seeds: a build with TReB's families) also its domain's
    knowledge (generator_py.vocabulary.knowledge)."""
    vocab = load_domains(attributes, values, ranges)
    loaded = load_templates(templates, vocab)
    grouped = unit_of = None
    if groupings is not None and units is not None:
        grouped = load_groupings(groupings, vocab)
        unit_of = load_units(units, {(t.domain, t.template_name) for t in loaded})
    out = {}
    for t in loaded:
        r = t.value_range
        knowledge = None
        if grouped is not None:
            knowledge = domain_knowledge(vocab[t.domain], grouped, unit_of.get((t.domain, t.template_name)),
                                         r.low, r.high, r.is_integer)
        out[(t.domain, t.template_name)] = Measure(r.aggregations, frozenset(vocab[t.domain].non_additive),
                                                   r.low, r.high, knowledge)
    return out


def _compact(t: RelationalTable) -> tuple:
    """A table as plain tuples (cheap to pickle)."""
    rows = getattr(t, "plain_rows", None)
    if rows is None:
        rows = Rows.from_frame(t.frame, [a.name for a in t.attributes]).rows
    return (t.table_id, t.domain, t.template_name, t.value_name,
            tuple((a.name, a.code, a.level, a.axis, a.depth) for a in t.attributes), rows, t.value_is_integer,
            t.agg_fun, t.agg_name, tuple((a.row_group, a.col_group, a.value) for a in t.shown_aggregates),
            getattr(t, "header_cells", ()))


def _uncompact(c: tuple) -> PlainRelationalTable:
    (tid, domain, template_name, value_name, attrs, rows, value_is_integer, agg_fun, agg_name, shown, headers) = c
    return PlainRelationalTable(tid, domain, template_name, value_name, tuple(TableAttribute(*a) for a in attrs),
                                rows, value_is_integer, agg_fun, agg_name, tuple(itertools.starmap(ShownAggregate, shown)),
                                headers)


# json.dumps(spec, sort_keys=True) and json.dumps(answer_rows, default=str), with the encoders built once and
# without the check for circular references (plain data, a fifth of the encoding time)
_SPEC_JSON = json.JSONEncoder(sort_keys=True, check_circular=False).encode
_ANSWER_JSON = json.JSONEncoder(default=str, check_circular=False).encode


def _paraphrases_json(q) -> Optional[str]:
    """The question in its template's other phrasings, as JSON [{phrasing, question}], when it has any."""
    if not q.paraphrases:
        return None
    return json.dumps([{"phrasing": p, "question": text} for p, text in q.paraphrases])


def _question_rows(table: RelationalTable, nl, seed: int, variety: str, measure: Measure, families,
                   partner: Optional[RelationalTable] = None, paraphrases: bool = False) -> list[tuple]:
    out = []
    for q in generate_questions(table, nl, seed, families, rows=getattr(table, "plain_rows", None), variety=variety,
                                measure=measure, partner=partner, paraphrases=paraphrases):
        md, pr = q.metadata, q.properties
        out.append((q.question_id, q.table_id, q.template_id, q.family, q.family_variant, q.phrasing, q.question,
                    q.sql, q.sql_literals, _SPEC_JSON(q.spec), _ANSWER_JSON(q.answer_rows))
                   + tuple(md[c] for c in COLUMNS[_N_FIXED:_N_FIXED + len(METADATA_COLUMNS) - 1])
                   + tuple(pr[c] for c in QUESTION_PROPERTY_COLUMNS)
                   + (q.kind, q.suite, q.answer_type, q.hides_caption,
                      q.blank_cell[0] if q.blank_cell else None, q.blank_cell[1] if q.blank_cell else None,
                      q.treb_skill, q.treb_subtask, q.treb_metric,
                      None if q.grid_change is None else _SPEC_JSON(q.grid_change),
                      None if q.steps is None else _ANSWER_JSON(q.steps), list(q.tables), list(q.table_roles),
                      _SPEC_JSON([list(c) for c in q.table_conditions]), _paraphrases_json(q)))
    return out


@contextmanager
def _young_gc():
    """Run the cyclic GC by hand on young objects only, once per table (call the yielded function).

    Drawing a table's questions leaves some reference cycles (about 15 KB a table), so the GC must run, but
    its automatic full collections rescan every question row built so far and cost about a quarter of the
    generation time. A generation-0 collection after each table frees that table's dead cycles and moves the
    rows kept to an older generation, which is not scanned again until the automatic GC is back on.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield lambda: gc.collect(0)
    finally:
        if enabled:
            gc.enable()


_WORKER: dict = {}


def _init_worker(nls: dict, seed: int, variety: str, measures: dict, families, paraphrases: bool = False) -> None:
    gc.freeze()  # objects inherited from the parent (fork): never scanned, so their pages stay shared
    _WORKER["paraphrases"] = paraphrases
    _WORKER["nls"] = nls
    _WORKER["measures"] = measures
    _WORKER["seed"] = seed
    _WORKER["variety"] = variety
    _WORKER["families"] = families


def _work(chunk: list[tuple]) -> pa.Table:
    nls, seed, variety, measures = _WORKER["nls"], _WORKER["seed"], _WORKER["variety"], _WORKER["measures"]
    families = _WORKER["families"]
    out = _ArrowRows()
    with _young_gc() as collect:
        for c, p in chunk:
            t = _uncompact(c)
            key = (t.domain, t.template_name)
            out.extend(_question_rows(t, nls[key], seed, variety, measures.get(key, Measure()), families,
                                      None if p is None else _uncompact(p), _WORKER["paraphrases"]))
            collect()
    out = out.table()
    return out.sort_by("question_id") if out.num_rows else out


def _to_arrow(rows: list[tuple]) -> pa.Table:
    if not rows:
        return pa.Table.from_pylist([])
    return pa.table({name: pa.array(list(col), type=_TYPES.get(name)) for name, col in zip(COLUMNS, zip(*rows))})


def _concat(parts: list[pa.Table]) -> pa.Table:
    """One table of `parts`; a column all NULL in one part takes the type the others give it (as one pass would)."""
    parts = [p for p in parts if p.num_columns]
    if not parts:
        return pa.Table.from_pylist([])
    return pa.concat_tables(parts, promote_options="permissive")


class _ArrowRows:
    """Question rows gathered as Arrow batches: Python tuples are held for one batch at a time, so memory
    follows the compact columnar size of the questions, not the size of millions of Python objects."""

    BATCH = 20_000

    def __init__(self):
        self._rows: list[tuple] = []
        self._parts: list[pa.Table] = []

    def extend(self, rows: list[tuple]) -> None:
        self._rows.extend(rows)
        if len(self._rows) >= self.BATCH:
            self._parts.append(_to_arrow(self._rows))
            self._rows = []

    def table(self) -> pa.Table:
        if self._rows:
            self._parts.append(_to_arrow(self._rows))
            self._rows = []
        return _concat(self._parts)


# columns that may be NULL on every row (a build without the naming families): typed, not null-typed
_TYPES = {"blank_grid_row": pa.int64(), "blank_grid_col": pa.int64(), "sql": pa.string(), "treb_skill": pa.string(),
          "treb_subtask": pa.string(), "grid_change": pa.string(), "steps_json": pa.string(),
          "tables": pa.list_(pa.string()), "table_roles": pa.list_(pa.string()), "paraphrases_json": pa.string()}


def generate_all(tables: list[RelationalTable], nl_templates: pd.DataFrame, meanings: pd.DataFrame,
                 attributes: pd.DataFrame, seed: int, workers: Optional[int] = None,
                 variety: str = "paper", measures: Optional[dict[tuple[str, str], Measure]] = None,
                 families: Optional[FamilyRegistry] = None, paraphrases: Optional[pd.DataFrame] = None) -> pa.Table:
    """Questions of every table (columns COLUMNS) sorted by question_id: `question_parts` in one table."""
    out = _concat(list(question_parts(tables, nl_templates, meanings, attributes, seed, workers, variety, measures,
                                      families, paraphrases)))
    return out.sort_by("question_id") if out.num_rows else out


# most tables in a run a worker is sent (and in the part it hands back): a few MB in flight at any scale
CHUNK_TABLES = 250


def question_parts(tables: Iterable[RelationalTable], nl_templates: pd.DataFrame, meanings: pd.DataFrame,
                   attributes: pd.DataFrame, seed: int, workers: Optional[int] = None,
                   variety: str = "paper", measures: Optional[dict[tuple[str, str], Measure]] = None,
                   families: Optional[FamilyRegistry] = None, paraphrases: Optional[pd.DataFrame] = None,
                   table_keys: Optional[list[tuple[str, str]]] = None) -> Iterator[pa.Table]:
    """Questions of every table (columns COLUMNS) as Arrow tables of a run of tables each, each sorted by
    question_id (with several workers, the runs in the order of `tables`); the rows do not depend on the number
    of workers, which work on the next runs while a part is used.

    `tables`: a list, or an iterator read once, as the runs are sent (`relational_table_stream`: in table id
    order, so the parts come in question order), with `table_keys` then the (domain, template_name) of every
    table. When a family of the build reads two tables, every table is read first, to pair them
    (questions/table_pairs.py). `measures`: per (domain, template_name), see template_measures; a template
    without one admits every aggregate. `families`: the question families of the build (default: every
    registered one). `paraphrases`: the paraphrase-only phrasings (seeds/nl_paraphrases.csv); given, each
    question also carries its text in every other phrasing of its template (`paraphrases_json`, NULL
    otherwise), the questions themselves unchanged."""
    measures = measures or {}
    families = FAMILIES if families is None else families
    restate = paraphrases is not None
    pairs = any(f.n_tables == 2 for f in families)
    if table_keys is None or pairs:
        tables = sorted(tables, key=lambda t: t.table_id)
        table_keys = [(t.domain, t.template_name) for t in tables]
    nls = {k: load_domain_nl(nl_templates, meanings, attributes, *k, families=families, paraphrases_df=paraphrases)
           for k in dict.fromkeys(table_keys)}
    partner: dict = {}
    if pairs:
        by_id = {t.table_id: t for t in tables}
        partner = {tid: by_id[p] for tid, p in partners_of_tables(tables, seed).items()}
        del by_id
    workers = workers or min(2, os.cpu_count() or 1)
    if workers > 1 and len(table_keys) > 200:
        # runs of tables, at least a few per worker: each part comes back sorted by question_id, which starts
        # with the table's id, so runs in table id order give parts in question order; a worker that is done
        # takes the next run; a run is read and made into compact tuples only when it is sent
        size = max(1, min(CHUNK_TABLES, -(-len(table_keys) // (workers * 4))))
        runs = iter(tables)
        jobs = ([(_compact(t), _compact(partner[t.table_id]) if t.table_id in partner else None) for t in run]
                for run in iter(lambda: list(itertools.islice(runs, size)), []))
        return streamed_pool_map(_work, jobs, workers, initializer=_init_worker,
                                 initargs=(nls, seed, variety, measures, families, restate))
    return _in_this_process(tables, nls, seed, variety, measures, families, partner, restate)


def _in_this_process(tables, nls, seed, variety, measures, families, partner, restate) -> Iterator[pa.Table]:
    rows = _ArrowRows()
    with _young_gc() as collect:
        for t in tables:
            key = (t.domain, t.template_name)
            rows.extend(_question_rows(t, nls[key], seed, variety, measures.get(key, Measure()), families,
                                       partner.get(t.table_id), restate))
            collect()
    yield rows.table()
