"""Sampling one relational table (T_REL) from a variant: attribute order, header values, and its values
(generator_py/tables/cell_values.py), distinct and different from every shown sum or average."""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .cell_values import draw_cells, free_value, unit_cents
from ..vocabulary.templates import Sample, TableTemplate, Variant
from ..vocabulary.domains import Code, Domain, ValueNode

Path = tuple[Optional[str], ...]


@dataclass(frozen=True)
class AxisAttribute:
    name: str
    code: str
    level: int


@dataclass
class AxisLeaf:
    labels: Path  # one entry per axis attribute; None where a hierarchy branch stopped early
    positions: tuple[int, ...]

    @property
    def header_path(self) -> tuple[str, ...]:
        return tuple(x for x in self.labels if x is not None)


@dataclass
class SampledTable:
    table_id: str
    replica: int
    row_attributes: list[AxisAttribute]
    col_attributes: list[AxisAttribute]
    row_leaves: list[AxisLeaf]
    col_leaves: list[AxisLeaf]
    values: np.ndarray  # [n_row_leaves, n_col_leaves], rounded to 2 decimals
    borders: bool


def arrange_codes(t: TableTemplate, v: Variant, dom: Domain, rng: random.Random) -> tuple[list[str], list[str]]:
    """Apply the shuffle command; hierarchies move as one unit and never split between axes."""
    rows, cols = list(t.row_codes), list(t.col_codes)
    if v.shuffle in ("rows", "rowscols"):
        rng.shuffle(rows)
    if v.shuffle in ("cols", "rowscols"):
        rng.shuffle(cols)
    if v.shuffle == "all":
        for _ in range(20):
            pool = rows + cols
            rng.shuffle(pool)
            new_cols, new_rows, depth = [], [], 0
            for c in pool:
                if depth < v.col_depth:
                    new_cols.append(c)
                    depth += dom.codes[c].n_levels
                else:
                    new_rows.append(c)
            if new_rows and sum(dom.codes[c].n_levels for c in new_rows) >= v.row_depth:
                return new_rows, new_cols
        # no permutation fitted the depths: keep the template's axes (still a valid shuffle outcome)
    return rows, cols


def truncate(codes: list[str], depth: int, dom: Domain) -> list[tuple[Code, int]]:
    """The first `depth` header levels: (code, levels of it shown); a hierarchy may be cut below its top."""
    out, left = [], depth
    for c in codes:
        if left == 0:
            break
        code = dom.codes[c]
        take = min(code.n_levels, left)
        out.append((code, take))
        left -= take
    return out


def pick_run(nodes: list[ValueNode], sample: Sample, rng: random.Random) -> list[ValueNode]:
    """n consecutive values with n drawn in [m, M] (all of them when the list is short, or for [0])."""
    if sample.all_values:
        return list(nodes)
    n = rng.randint(sample.low, sample.high)
    if n >= len(nodes):
        return list(nodes)
    start = rng.randint(0, len(nodes) - n)
    return nodes[start:start + n]


def code_paths(code: Code, levels: int, sample: Sample, rng: random.Random) -> list[tuple[Path, tuple[int, ...]]]:
    """Leaf paths of one code truncated to `levels`, sampled level by level from the top."""
    out: list[tuple[Path, tuple[int, ...]]] = []

    def walk(nodes: list[ValueNode], prefix: Path, pos: tuple[int, ...]) -> None:
        for node in pick_run(nodes, sample, rng):
            p, q = prefix + (node.label,), pos + (node.position,)
            if len(p) < levels and node.children:
                walk(node.children, p, q)
            else:
                pad = levels - len(p)  # a branch that stops early: unbalanced nesting
                out.append((p + (None,) * pad, q + (0,) * pad))

    walk(code.roots, (), ())
    return out


def axis_leaves(parts: list[tuple[Code, int]], samples: dict[str, Sample], rng: random.Random) -> tuple[list[AxisAttribute], list[AxisLeaf]]:
    attrs = [AxisAttribute(code.attribute_names[i], code.code, i + 1) for code, n in parts for i in range(n)]
    per_code = [code_paths(code, n, samples[code.code], rng) for code, n in parts]
    leaves = []
    for combo in itertools.product(*per_code):
        labels = tuple(x for path, _ in combo for x in path)
        positions = tuple(x for _, pos in combo for x in pos)
        leaves.append(AxisLeaf(labels, positions))
    return attrs, leaves


def group_matrix(leaves: list[AxisLeaf]) -> np.ndarray:
    """Indicator rows for every header group (proper prefix of some leaf path, incl. the whole axis)."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, leaf in enumerate(leaves):
        path = leaf.header_path
        for k in range(len(path)):
            groups.setdefault(path[:k], []).append(i)
    m = np.zeros((len(groups) + len(leaves), len(leaves)))
    for g, idx in enumerate(groups.values()):
        m[g, idx] = 1.0
    m[len(groups):, :] = np.eye(len(leaves))  # single leaves pair with groups of the other axis
    return m


def colliding_values(cents: np.ndarray, rows: np.ndarray, cols: np.ndarray, agg_fun: str) -> set[int]:
    """Data values (in hundredths) that equal a sum or average over some header group pair."""
    if agg_fun not in ("sum", "avg"):
        return set()
    sums = rows @ cents @ cols.T
    counts = rows @ np.ones_like(cents) @ cols.T
    aggs = sums if agg_fun == "sum" else sums / np.maximum(counts, 1)
    # hundredths, rounded half away from zero as the table prints them; a single cell is a data value itself
    aggs = np.round(aggs[counts >= 2], 4)
    aggs = (np.sign(aggs) * np.floor(np.abs(aggs) + 0.5)).astype(np.int64)
    return set(np.intersect1d(aggs, cents.astype(np.int64)).tolist())


def sample_table(t: TableTemplate, v: Variant, dom: Domain, replica: int, seed: int) -> SampledTable:
    from ..core.rng import rng_for

    table_id = v.table_id(replica)
    rng = rng_for(seed, table_id)
    row_codes, col_codes = arrange_codes(t, v, dom, rng)
    samples = dict(zip(t.row_codes, t.row_samples)) | dict(zip(t.col_codes, t.col_samples))
    row_attrs, row_leaves = axis_leaves(truncate(row_codes, v.row_depth, dom), samples, rng)
    col_attrs, col_leaves = axis_leaves(truncate(col_codes, v.col_depth, dom), samples, rng)
    used: set[int] = set()
    cents, low, high = draw_cells(t, [a.name for a in row_attrs], [leaf.labels for leaf in row_leaves],
                                  [a.name for a in col_attrs], [leaf.labels for leaf in col_leaves], rng, used)
    rows_m, cols_m = group_matrix(row_leaves), group_matrix(col_leaves)
    # Move data values equal to an aggregate by the smallest unit, so no answer can be read off two cells.
    step = unit_cents(t)
    # A move changes the aggregates too: from the second round on the search starts a random number of
    # units off, the reach doubling each round, so a run of values packed at a bound cannot chase an
    # aggregate for long.
    for round_ in range(1000):
        bad = colliding_values(cents, rows_m, cols_m, t.agg_fun)
        if not bad:
            break
        flat, flat_low, flat_high = cents.reshape(-1), low.reshape(-1), high.reshape(-1)
        cells = np.flatnonzero(np.isin(flat, np.array(sorted(bad), dtype=float)))
        for k in cells[np.argsort(flat[cells], kind="stable")].tolist():  # values distinct: one cell each
            x, lo, hi = int(flat[k]), int(flat_low[k]), int(flat_high[k])
            reach = min(2 ** round_, (hi - lo) // step) if round_ else 0
            start = min(max(x + rng.randint(-reach, reach) * step, lo), hi)
            flat[k] = free_value(start, lo, hi, step, used)  # x is still taken: the cell moves
            used.add(int(flat[k]))
            used.discard(x)  # `used` holds the table's current values only, so a range cannot fill up
    else:
        raise RuntimeError(f"{table_id}: could not find values that differ from every aggregate")
    return SampledTable(table_id, replica, row_attrs, col_attrs, row_leaves, col_leaves, cents / 100.0, rng.random() < 0.5)
