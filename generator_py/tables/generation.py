"""Seeds in, sampled relational tables out: the entry points the dbt Python models call."""
from __future__ import annotations

import os
from typing import Iterator, Optional

import numpy as np
import pandas as pd
import pyarrow as pa

from .sampling import SampledTable, sample_table
from ..core.child_process import streamed_pool_map
from ..vocabulary.templates import TableTemplate, Variant, expand_variants, load_options, load_templates
from ..vocabulary.domains import Domain, load_domains
from ..vocabulary.value_model import load_value_models


def load_all(attributes: pd.DataFrame, values: pd.DataFrame, ranges: pd.DataFrame, effects: pd.DataFrame,
             templates: pd.DataFrame, options: pd.DataFrame, replicas: Optional[int] = None,
             domains: Optional[list[str]] = None):
    """Validate every seed, then expand the templates into variants (raises SeedError on bad input)."""
    vocab = load_domains(attributes, values, ranges)
    tmpl = load_templates(templates, vocab, load_value_models(effects, vocab))
    if domains:
        unknown = sorted(set(domains) - {t.domain for t in tmpl})
        if unknown:
            raise ValueError(f"var domains names {unknown}, which have no table template; known: {sorted({t.domain for t in tmpl})}")
        tmpl = [t for t in tmpl if t.domain in domains]
    variants = expand_variants(tmpl, load_options(options), vocab, replicas)
    return vocab, tmpl, variants


VARIANT_COLUMNS = ["domain", "template_name", "variant_id", "replicas", "shuffle", "col_depth", "row_depth",
                   "name_pos", "col_agg_pos", "row_agg_pos", "row_format"]


def variants_frame(variants: list[Variant]) -> pd.DataFrame:
    return pd.DataFrame([[getattr(v, c) for c in VARIANT_COLUMNS] for v in variants], columns=VARIANT_COLUMNS)


ROWS_SCHEMA = pa.schema([
    ("table_id", pa.string()), ("domain", pa.string()), ("template_name", pa.string()),
    ("variant_id", pa.int32()), ("replica", pa.int32()), ("value_name", pa.string()),
    ("value_is_integer", pa.bool_()), ("agg_fun", pa.string()), ("agg_name", pa.string()),
    ("shuffle", pa.string()), ("col_depth", pa.int32()), ("row_depth", pa.int32()), ("name_pos", pa.string()),
    ("col_agg_pos", pa.string()), ("row_agg_pos", pa.string()), ("row_format", pa.string()), ("borders", pa.bool_()),
    ("row_attributes", pa.list_(pa.string())), ("row_attribute_codes", pa.list_(pa.string())),
    ("row_attribute_levels", pa.list_(pa.int32())),
    ("col_attributes", pa.list_(pa.string())), ("col_attribute_codes", pa.list_(pa.string())),
    ("col_attribute_levels", pa.list_(pa.int32())),
    ("rel_row", pa.int32()), ("row_leaf", pa.int32()), ("col_leaf", pa.int32()),
    ("row_labels", pa.list_(pa.string())), ("row_positions", pa.list_(pa.int32())),
    ("col_labels", pa.list_(pa.string())), ("col_positions", pa.list_(pa.int32())),
    ("row_path", pa.list_(pa.string())), ("row_path_positions", pa.list_(pa.int32())),
    ("col_path", pa.list_(pa.string())), ("col_path_positions", pa.list_(pa.int32())),
    ("value", pa.float64()),
])


BATCH_ROWS = 50_000


_SAMPLER: dict = {}


def _init_sampler(vocab: dict[str, Domain], templates: list[TableTemplate], seed: int) -> None:
    """What every chunk of a worker reads, handed over once (inherited by the forked worker, not pickled)."""
    _SAMPLER.update(vocab=vocab, by_key={(t.domain, t.template_name): t for t in templates}, seed=seed)


def _sample_chunk(ranges: list[tuple[Variant, int, int]]) -> pa.Table:
    """The tables of a chunk: (variant, first replica, last replica) ranges, in order (after _init_sampler)."""
    vocab, by_key, seed = _SAMPLER["vocab"], _SAMPLER["by_key"], _SAMPLER["seed"]
    batches: list[pa.Table] = []
    rows = _ChunkRows()
    for v, first, last in ranges:
        t = by_key[(v.domain, v.template_name)]
        for replica in range(first, last + 1):
            rows.add(t, v, sample_table(t, v, vocab[v.domain], replica, seed))
            if rows.n_rows >= BATCH_ROWS:  # Arrow holds rows far more compactly than Python lists
                batches.append(rows.table())
                rows = _ChunkRows()
    batches.append(rows.table())
    return pa.concat_tables(batches)


# tables per chunk a worker samples: the results in flight stay a few MB each at any scale
CHUNK_TABLES = 250
# fewer tables than this are sampled in this process: starting workers would cost more than they save
POOL_MIN_TABLES = 500


def _table_chunks(variants: list[Variant], size: int = CHUNK_TABLES) -> list[list[tuple[Variant, int, int]]]:
    """The tables of `variants`, in order, cut into chunks of `size` tables ((variant, first, last replica))."""
    chunks: list[list[tuple[Variant, int, int]]] = [[]]
    room = size
    for v in variants:
        first = 1
        while first <= v.replicas:
            if room == 0:
                chunks.append([])
                room = size
            last = min(v.replicas, first + room - 1)
            chunks[-1].append((v, first, last))
            room -= last - first + 1
            first = last + 1
    return [c for c in chunks if c]


def sample_all(vocab: dict[str, Domain], templates: list[TableTemplate], variants: list[Variant], seed: int,
               workers: Optional[int] = None) -> Iterator[pa.Table]:
    """Every table of every variant, in variant then replica order, as Arrow tables of a chunk of tables each
    (ROWS_SCHEMA): worker processes sample the next chunks while a chunk is used, so no process holds the
    whole sample. Each table has its own RNG, so neither the split into chunks nor the workers change
    anything."""
    workers = workers or min(2, os.cpu_count() or 1)
    chunks = _table_chunks(variants, CHUNK_TABLES)
    if workers <= 1 or sum(v.replicas for v in variants) < POOL_MIN_TABLES:
        _init_sampler(vocab, templates, seed)
        return (_sample_chunk(c) for c in chunks)
    return streamed_pool_map(_sample_chunk, chunks, workers, initializer=_init_sampler,
                             initargs=(vocab, templates, seed))


_TABLE_FIELDS = ("table_id", "domain", "template_name", "variant_id", "replica", "value_name", "value_is_integer",
                 "agg_fun", "agg_name", "shuffle", "col_depth", "row_depth", "name_pos", "col_agg_pos", "row_agg_pos",
                 "row_format", "borders", "row_attributes", "row_attribute_codes", "row_attribute_levels",
                 "col_attributes", "col_attribute_codes", "col_attribute_levels")
_LEAF_FIELDS = ("labels", "positions", "path", "path_positions")


class _ChunkRows:
    """The relational rows of a run of sampled tables, gathered per table and per leaf, and spread over the rows
    by Arrow (`take`) when the batch is made: a table's fields and a leaf's lists are converted once, not once
    per row they repeat on. Rows run over a table's row leaves, then its column leaves."""

    def __init__(self):
        self.tables: dict[str, list] = {f: [] for f in _TABLE_FIELDS}
        self.leaves = {axis: {f: [] for f in _LEAF_FIELDS} for axis in ("row", "col")}
        self.shapes: list[tuple[int, int]] = []
        self.values: list[np.ndarray] = []
        self.n_rows = 0

    def add(self, t: TableTemplate, v: Variant, s: SampledTable) -> None:
        fields = (s.table_id, v.domain, v.template_name, v.variant_id, s.replica, t.value_name,
                  t.value_range.is_integer, t.agg_fun, t.agg_name, v.shuffle, v.col_depth, v.row_depth, v.name_pos,
                  v.col_agg_pos, v.row_agg_pos, v.row_format, s.borders,
                  [a.name for a in s.row_attributes], [a.code for a in s.row_attributes],
                  [a.level for a in s.row_attributes], [a.name for a in s.col_attributes],
                  [a.code for a in s.col_attributes], [a.level for a in s.col_attributes])
        for name, value in zip(_TABLE_FIELDS, fields):
            self.tables[name].append(value)
        for axis, leaves in (("row", s.row_leaves), ("col", s.col_leaves)):
            out = self.leaves[axis]
            for leaf in leaves:
                out["labels"].append(list(leaf.labels))
                out["positions"].append(list(leaf.positions))
                out["path"].append(list(leaf.header_path))
                out["path_positions"].append([p for x, p in zip(leaf.labels, leaf.positions) if x is not None])
        self.shapes.append((len(s.row_leaves), len(s.col_leaves)))
        self.values.append(s.values.reshape(-1))
        self.n_rows += len(s.row_leaves) * len(s.col_leaves)

    def table(self) -> pa.Table:
        n_rows = np.array([r for r, _ in self.shapes], dtype=np.int64)
        n_cols = np.array([c for _, c in self.shapes], dtype=np.int64)
        sizes = n_rows * n_cols
        first_row_leaf = np.concatenate(([0], np.cumsum(n_rows)[:-1]))
        first_col_leaf = np.concatenate(([0], np.cumsum(n_cols)[:-1]))
        of_table = np.repeat(np.arange(len(sizes)), sizes)  # each row's table
        within = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)  # 0.. per table
        row_leaf = within // n_cols[of_table]
        col_leaf = within % n_cols[of_table]
        by_table = pa.array(of_table)
        arrays = {name: pa.array(values, ROWS_SCHEMA.field(name).type).take(by_table)
                  for name, values in self.tables.items()}
        arrays["rel_row"] = pa.array(within + 1, pa.int32())
        arrays["row_leaf"] = pa.array(row_leaf + 1, pa.int32())
        arrays["col_leaf"] = pa.array(col_leaf + 1, pa.int32())
        for axis, leaf_of_row in (("row", first_row_leaf[of_table] + row_leaf),
                                  ("col", first_col_leaf[of_table] + col_leaf)):
            take = pa.array(leaf_of_row)
            for field in _LEAF_FIELDS:
                name = f"{axis}_{field}"
                arrays[name] = pa.array(self.leaves[axis][field], ROWS_SCHEMA.field(name).type).take(take)
        arrays["value"] = pa.array(np.concatenate(self.values) if self.values else np.zeros(0), pa.float64())
        return pa.table([arrays[f.name] for f in ROWS_SCHEMA], schema=ROWS_SCHEMA)
