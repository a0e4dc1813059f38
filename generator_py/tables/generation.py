"""Seeds in, sampled relational tables out: the entry points the dbt Python models call."""
from __future__ import annotations

import os
from typing import Iterator, Optional

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
    cols: dict[str, list] = {f.name: [] for f in ROWS_SCHEMA}
    for v, first, last in ranges:
        t = by_key[(v.domain, v.template_name)]
        for replica in range(first, last + 1):
            _append_rows(cols, t, v, sample_table(t, v, vocab[v.domain], replica, seed))
            if len(cols["rel_row"]) >= BATCH_ROWS:  # Arrow holds rows far more compactly than Python lists
                batches.append(pa.table(cols, schema=ROWS_SCHEMA))
                cols = {f.name: [] for f in ROWS_SCHEMA}
    batches.append(pa.table(cols, schema=ROWS_SCHEMA))
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


def _append_rows(cols: dict[str, list], t: TableTemplate, v: Variant, s: SampledTable) -> None:
    fixed = {
        "table_id": s.table_id, "domain": v.domain, "template_name": v.template_name, "variant_id": v.variant_id,
        "replica": s.replica, "value_name": t.value_name, "value_is_integer": t.value_range.is_integer,
        "agg_fun": t.agg_fun, "agg_name": t.agg_name, "shuffle": v.shuffle, "col_depth": v.col_depth,
        "row_depth": v.row_depth, "name_pos": v.name_pos, "col_agg_pos": v.col_agg_pos, "row_agg_pos": v.row_agg_pos,
        "row_format": v.row_format, "borders": s.borders,
        "row_attributes": [a.name for a in s.row_attributes], "row_attribute_codes": [a.code for a in s.row_attributes],
        "row_attribute_levels": [a.level for a in s.row_attributes],
        "col_attributes": [a.name for a in s.col_attributes], "col_attribute_codes": [a.code for a in s.col_attributes],
        "col_attribute_levels": [a.level for a in s.col_attributes],
    }
    n_rows, n_cols = len(s.row_leaves), len(s.col_leaves)
    n = n_rows * n_cols
    for k, val in fixed.items():
        cols[k].extend([val] * n)
    # relational rows run over row leaves, then column leaves
    cols["rel_row"].extend(range(1, n + 1))
    cols["row_leaf"].extend(i + 1 for i in range(n_rows) for _ in range(n_cols))
    cols["col_leaf"].extend(list(range(1, n_cols + 1)) * n_rows)
    row_parts = [(list(rl.labels), list(rl.positions), list(rl.header_path),
                  [p for x, p in zip(rl.labels, rl.positions) if x is not None]) for rl in s.row_leaves]
    col_parts = [(list(cl.labels), list(cl.positions), list(cl.header_path),
                  [p for x, p in zip(cl.labels, cl.positions) if x is not None]) for cl in s.col_leaves]
    for name, idx in (("row_labels", 0), ("row_positions", 1), ("row_path", 2), ("row_path_positions", 3)):
        cols[name].extend(part[idx] for part in row_parts for _ in range(n_cols))
    for name, idx in (("col_labels", 0), ("col_positions", 1), ("col_path", 2), ("col_path_positions", 3)):
        cols[name].extend(part[idx] for _ in range(n_rows) for part in col_parts)
    cols["value"].extend(s.values.reshape(-1).tolist())
