"""The six structure probes of TabIS Table 9 on a table's CSV grid, with wrong options drawn nearby.

A probe is positions only (anchor, target, wrong); `render` reads the texts off a grid, so the same
probe is asked on the original table and on its letters/numbers variants (TabIS Figure 11).
Positions are 1-based rows and columns of the CSV rendering, header rows included. A row's or
column's content is its non-empty cells in grid order joined by ` | `. The wrong option is the
content at a position drawn from N(target, 1) (TabIS Appendix C.1), never equal to the right one.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Optional

from .option_text import options_differ

PROBES = ("tsu_pcl", "tsu_prl", "tsu_pll", "tsu_rcl", "tsu_rrl", "tsu_rll")
GAUSSIAN_DRAWS = 50

ANCHOR = "The anchor cell is {anchor} in row {row} and column {col}. "
QUESTIONS = {
    "tsu_pcl": "What is the content of the cell located at row {row} and column {col}?",
    "tsu_prl": "What are the contents of the cells in row {row}?",
    "tsu_pll": "What are the contents of the cells in column {col}?",
    ("tsu_rcl", "below"): ANCHOR + "What is the content of the first cell below the anchor cell within the same column?",
    ("tsu_rcl", "above"): ANCHOR + "What is the content of the first cell above the anchor cell within the same column?",
    ("tsu_rcl", "left"): ANCHOR + "What is the content of the first cell left to the anchor cell within the same row?",
    ("tsu_rcl", "right"): ANCHOR + "What is the content of the first cell right to the anchor cell within the same row?",
    ("tsu_rrl", "same"): ANCHOR + "What are the contents of the cells within the same row as the anchor cell?",
    ("tsu_rrl", "above"): ANCHOR + "What are the contents of the first row above the anchor cell?",
    ("tsu_rrl", "below"): ANCHOR + "What are the contents of the first row below the anchor cell?",
    ("tsu_rll", "same"): ANCHOR + "What are the contents of the cells within the same column as the anchor cell?",
    ("tsu_rll", "left"): ANCHOR + "What are the contents of the first column left to the anchor cell?",
    ("tsu_rll", "right"): ANCHOR + "What are the contents of the first column right to the anchor cell?",
}
STEPS = {"below": (1, 0), "above": (-1, 0), "left": (0, -1), "right": (0, 1)}


@dataclass(frozen=True)
class Probe:
    kind: str
    direction: Optional[str]  # relative probes: which template of Table 9
    anchor: Optional[tuple]  # (row, col) of the anchor cell, relative probes
    target: tuple  # (row, col), (row, None) or (None, col)
    wrong: tuple  # the same shape as target


class GridView:
    """A grid with its row and column contents and its non-empty positions worked out once."""

    __slots__ = ("grid", "n_rows", "n_cols", "rows", "columns", "cells")

    def __init__(self, grid):
        self.grid = [[t.strip() for t in line] for line in grid]
        self.n_rows, self.n_cols = len(self.grid), len(self.grid[0])
        self.rows = [" | ".join(t for t in line if t) for line in self.grid]
        self.columns = [" | ".join(line[c] for line in self.grid if line[c]) for c in range(self.n_cols)]
        self.cells = [(r + 1, c + 1) for r, line in enumerate(self.grid) for c, t in enumerate(line) if t]

    def cell(self, row: int, col: int) -> str:
        return self.grid[row - 1][col - 1]

    def content(self, position: tuple) -> str:
        row, col = position
        if row is None:
            return self.columns[col - 1]
        if col is None:
            return self.rows[row - 1]
        return self.grid[row - 1][col - 1]

    def first_cell(self, start: tuple, step: tuple) -> Optional[tuple]:
        r, c = start[0] + step[0], start[1] + step[1]
        while 1 <= r <= self.n_rows and 1 <= c <= self.n_cols:
            if self.grid[r - 1][c - 1]:
                return (r, c)
            r, c = r + step[0], c + step[1]
        return None

    def first_line(self, start: int, step: int, axis: str) -> Optional[int]:
        """The first non-empty row (or column) from `start` in direction `step` (`start` itself when 0)."""
        lines = self.rows if axis == "row" else self.columns
        i = start + step
        while 1 <= i <= len(lines):
            if lines[i - 1]:
                return i
            if step == 0:
                return None
            i += step
        return None


def _clamp(x: float, n: int) -> int:
    return min(max(int(round(x)), 1), n)


def wrong_position(view: GridView, target: tuple, rng: random.Random) -> Optional[tuple]:
    """A position drawn from N(target, 1) whose content is non-empty and differs from the target's;
    failing that after a number of draws, the nearest such position (ties in grid order)."""
    n_rows, n_cols = view.n_rows, view.n_cols
    right = view.content(target)

    def usable(p: tuple) -> bool:
        text = view.content(p)
        return p != target and bool(text) and options_differ(text, right)

    for _ in range(GAUSSIAN_DRAWS):
        p = (None if target[0] is None else _clamp(rng.gauss(target[0], 1), n_rows),
             None if target[1] is None else _clamp(rng.gauss(target[1], 1), n_cols))
        if usable(p):
            return p
    rows = [None] if target[0] is None else range(1, n_rows + 1)
    cols = [None] if target[1] is None else range(1, n_cols + 1)
    everything = [(r, c) for r in rows for c in cols]
    everything.sort(key=lambda p: (abs((p[0] or 0) - (target[0] or 0)) + abs((p[1] or 0) - (target[1] or 0)), p[0] or 0, p[1] or 0))
    return next((p for p in everything if usable(p)), None)


def _finish(kind, direction, anchor, target, view, rng) -> Optional[Probe]:
    wrong = wrong_position(view, target, rng)
    return Probe(kind, direction, anchor, target, wrong) if wrong else None


def _positional(kind: str, view: GridView, rng: random.Random) -> Optional[Probe]:
    cells = view.cells
    if not cells:
        return None
    if kind == "tsu_pcl":
        target = rng.choice(cells)
    elif kind == "tsu_prl":
        target = (rng.choice(sorted({r for r, _ in cells})), None)
    else:
        target = (None, rng.choice(sorted({c for _, c in cells})))
    return _finish(kind, None, None, target, view, rng)


RELATIVE_DIRECTIONS = {"tsu_rcl": ("below", "above", "left", "right"), "tsu_rrl": ("same", "above", "below"),
                       "tsu_rll": ("same", "left", "right")}
LINE_STEPS = {"same": 0, "above": -1, "below": 1, "left": -1, "right": 1}


def _relative_target(kind: str, view: GridView, anchor: tuple, direction: str) -> Optional[tuple]:
    if kind == "tsu_rcl":
        return view.first_cell(anchor, STEPS[direction])
    if kind == "tsu_rrl":
        row = view.first_line(anchor[0], LINE_STEPS[direction], "row")
        return None if row is None else (row, None)
    col = view.first_line(anchor[1], LINE_STEPS[direction], "column")
    return None if col is None else (None, col)


def _relative(kind: str, view: GridView, rng: random.Random) -> Optional[Probe]:
    """A uniformly drawn (anchor, direction) among those with a target, drawn by rejection."""
    directions = RELATIVE_DIRECTIONS[kind]
    if not view.cells:
        return None
    for _ in range(GAUSSIAN_DRAWS):
        anchor, d = rng.choice(view.cells), rng.choice(directions)
        target = _relative_target(kind, view, anchor, d)
        if target is not None:
            return _finish(kind, d, anchor, target, view, rng)
    options = [(a, d) for a in view.cells for d in directions if _relative_target(kind, view, a, d) is not None]
    if not options:
        return None
    anchor, d = rng.choice(options)
    return _finish(kind, d, anchor, _relative_target(kind, view, anchor, d), view, rng)


PROBE_BUILDERS: dict[str, Callable] = {k: (_positional if k in ("tsu_pcl", "tsu_prl", "tsu_pll") else _relative)
                                       for k in PROBES}


def make_probe(kind: str, view: GridView, rng: random.Random) -> Optional[Probe]:
    return PROBE_BUILDERS[kind](kind, view, rng)


def render(probe: Probe, view: GridView) -> tuple[str, str, str]:
    """(question, right option, wrong option) of the probe on this grid."""
    key = probe.kind if probe.direction is None else (probe.kind, probe.direction)
    fields = {"row": probe.target[0], "col": probe.target[1]}
    if probe.anchor is not None:
        fields = {"anchor": view.cell(*probe.anchor), "row": probe.anchor[0], "col": probe.anchor[1]}
    return QUESTIONS[key].format(**fields), view.content(probe.target), view.content(probe.wrong)
