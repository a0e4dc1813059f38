"""A table's cell values drawn from its measure's value model (generator_py/vocabulary/value_model.py):
expected values from the header labels, noise, the cell's range as bounds, distinct values."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ..vocabulary.templates import TableTemplate
from ..vocabulary.value_model import Condition, ValueModel

Labels = dict[str, np.ndarray]  # attribute name -> its label per leaf of one axis (None where a branch stopped)


class AxisIndex:
    """One axis's labels per attribute, with a cached leaf mask per (attribute, label)."""

    def __init__(self, attribute_names: Sequence[str], leaf_labels: Sequence[Sequence[Optional[str]]]):
        self.labels: Labels = {a: np.array([labels[k] for labels in leaf_labels], dtype=object)
                               for k, a in enumerate(attribute_names)}
        self._masks: dict[tuple[str, str], np.ndarray] = {}

    def __contains__(self, attr: str) -> bool:
        return attr in self.labels

    def mask(self, attr: str, label: str) -> np.ndarray:
        key = (attr, label)
        if key not in self._masks:
            self._masks[key] = self.labels[attr] == label
        return self._masks[key]


def condition_mask(cond: Condition, rows: AxisIndex, cols: AxisIndex, shape: tuple[int, int]) -> Optional[np.ndarray]:
    """Cells whose header labels satisfy every (attribute, label) of cond; None when none can."""
    row_ok: Optional[np.ndarray] = None
    col_ok: Optional[np.ndarray] = None
    for attr, label in cond:
        if attr in rows:
            m = rows.mask(attr, label)
            row_ok = m if row_ok is None else row_ok & m
        elif attr in cols:
            m = cols.mask(attr, label)
            col_ok = m if col_ok is None else col_ok & m
        else:
            return None
    row_ok = np.ones(shape[0], dtype=bool) if row_ok is None else row_ok
    col_ok = np.ones(shape[1], dtype=bool) if col_ok is None else col_ok
    if not row_ok.any() or not col_ok.any():
        return None
    return row_ok[:, None] & col_ok[None, :]


def _numeric(labels: np.ndarray) -> np.ndarray:
    return np.array([np.nan if x is None else float(x) for x in labels])


def trend_offsets(attr: str, mid: float, rows: AxisIndex, cols: AxisIndex, shape: tuple[int, int]) -> Optional[np.ndarray]:
    """Units from the attribute's middle value per cell (0 where a cell has no label of it); None if absent."""
    if attr in rows:
        return np.broadcast_to(np.nan_to_num(_numeric(rows.labels[attr]) - mid)[:, None], shape)
    if attr in cols:
        return np.broadcast_to(np.nan_to_num(_numeric(cols.labels[attr]) - mid)[None, :], shape)
    return None


@dataclass(frozen=True)
class CompiledModel:
    """A value model split for a cheap draw: one-attribute effects as label -> amount per attribute, read
    once per axis attribute; only interactions go through condition masks."""

    shift_by_label: dict[str, dict[str, float]]
    scale_by_label: dict[str, dict[str, float]]
    shift_interactions: tuple[tuple[Condition, float], ...]
    scale_interactions: tuple[tuple[Condition, float], ...]


_COMPILED: dict[int, tuple[ValueModel, CompiledModel]] = {}


def compiled(model: ValueModel) -> CompiledModel:
    hit = _COMPILED.get(id(model))
    if hit is None or hit[0] is not model:
        by_label: dict[str, dict[str, dict[str, float]]] = {"shift": {}, "scale": {}}
        inter: dict[str, list] = {"shift": [], "scale": []}
        for kind, effects in (("shift", model.shifts), ("scale", model.scales)):
            for cond, amount in effects:
                if len(cond) == 1:
                    table = by_label[kind].setdefault(cond[0][0], {})
                    label = cond[0][1]
                    table[label] = table.get(label, 0.0 if kind == "shift" else 1.0)
                    table[label] = table[label] + amount if kind == "shift" else table[label] * amount
                else:
                    inter[kind].append((cond, amount))
        hit = (model, CompiledModel(by_label["shift"], by_label["scale"], tuple(inter["shift"]), tuple(inter["scale"])))
        _COMPILED[id(model)] = hit
    return hit[1]


def _axis_effect(by_label: dict[str, dict[str, float]], axis: AxisIndex, neutral: float, combine) -> np.ndarray:
    """The combined one-attribute effects per leaf of one axis."""
    n = len(next(iter(axis.labels.values()))) if axis.labels else 0
    out = np.full(n, neutral)
    for attr, labels in axis.labels.items():
        table = by_label.get(attr)
        if table:
            out = combine(out, np.array([table.get(x, neutral) for x in labels]))
    return out


def expected_values(model: ValueModel, rows: AxisIndex, cols: AxisIndex, shape: tuple[int, int]) -> np.ndarray:
    c = compiled(model)
    additive = (model.baseline + _axis_effect(c.shift_by_label, rows, 0.0, np.add)[:, None]
                + _axis_effect(c.shift_by_label, cols, 0.0, np.add)[None, :])
    factor = (_axis_effect(c.scale_by_label, rows, 1.0, np.multiply)[:, None]
              * _axis_effect(c.scale_by_label, cols, 1.0, np.multiply)[None, :])
    for cond, amount in c.shift_interactions:
        m = condition_mask(cond, rows, cols, shape)
        if m is not None:
            additive = additive + amount * m
    for attr, amount, mid in model.trend_shifts:
        off = trend_offsets(attr, mid, rows, cols, shape)
        if off is not None:
            additive = additive + amount * off
    for cond, amount in c.scale_interactions:
        m = condition_mask(cond, rows, cols, shape)
        if m is not None:
            factor = factor * np.where(m, amount, 1.0)
    for attr, amount, mid in model.trend_scales:
        off = trend_offsets(attr, mid, rows, cols, shape)
        if off is not None:
            factor = factor * (1.0 + amount) ** off
    return np.broadcast_to(additive * factor, shape).copy()


def cell_bounds(t: TableTemplate, rows: AxisIndex, cols: AxisIndex, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Low and high bound per cell: the matching conditional range with the most conditions (the first in
    file order among equals), else the template's range."""
    low, high = np.full(shape, t.value_range.low), np.full(shape, t.value_range.high)
    # applied from the least specific up, so the most specific (and the first among equals) is written last
    order = sorted(range(len(t.conditional_ranges)), key=lambda i: (len(t.conditional_ranges[i][0]), -i))
    for i in order:
        cond, vr = t.conditional_ranges[i]
        m = condition_mask(cond, rows, cols, shape)
        if m is not None:
            low[m], high[m] = vr.low, vr.high
    return low, high


def unit_cents(t: TableTemplate) -> int:
    """The smallest step of a value, in hundredths: 1 for a whole number, 0.01 for a two-decimal real."""
    return 100 if t.value_range.is_integer else 1


def free_value(x: int, low: int, high: int, step: int, used: set[int]) -> int:
    """The nearest value to x not in `used`, by steps of the unit, inside [low, high] (x first, then x+1,
    x-1, x+2, ...); above high when the range is full."""
    for k in range(0, (high - low) // step + 1):
        for y in ((x,) if k == 0 else (x + k * step, x - k * step)):
            if low <= y <= high and y not in used:
                return y
    y = max(x, high) + step
    while y in used:
        y += step
    return y


def draw_cells(t: TableTemplate, row_attrs: Sequence[str], row_labels: Sequence[Sequence[Optional[str]]],
               col_attrs: Sequence[str], col_labels: Sequence[Sequence[Optional[str]]], rng: random.Random,
               used: set[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct cell values in hundredths (float array), and each cell's bounds in hundredths.

    `used` receives every value taken, so a later redraw stays distinct."""
    rows, cols = AxisIndex(row_attrs, row_labels), AxisIndex(col_attrs, col_labels)
    shape = (len(row_labels), len(col_labels))
    model = t.model
    expected = expected_values(model, rows, cols, shape)
    floor = (t.value_range.high - t.value_range.low) / 10
    noise = np.random.default_rng(rng.getrandbits(64)).standard_normal(shape)
    drawn = expected + noise * model.noise * np.maximum(np.abs(expected), floor)
    step = unit_cents(t)
    low, high = cell_bounds(t, rows, cols, shape)
    low_c = np.ceil(np.round(low * 100 / step, 6)).astype(np.int64) * step
    high_c = np.floor(np.round(high * 100 / step, 6)).astype(np.int64) * step
    cents = np.clip(np.round(drawn * 100 / step).astype(np.int64) * step, low_c, high_c)
    flat = cents.reshape(-1)
    # the first cell holding a value keeps it; a later one (often at a bound the noise clipped to) moves
    # to the nearest free value, in cell order
    _, first = np.unique(flat, return_index=True)
    keep = np.zeros(flat.size, dtype=bool)
    keep[first] = True
    if used:
        keep &= ~np.isin(flat, np.fromiter(used, dtype=np.int64))
    used.update(flat[keep].tolist())
    lo, hi = low_c.reshape(-1), high_c.reshape(-1)
    for k in np.flatnonzero(~keep).tolist():
        flat[k] = free_value(int(flat[k]), int(lo[k]), int(hi[k]), step, used)
        used.add(int(flat[k]))
    return flat.reshape(shape).astype(float), low_c, high_c
