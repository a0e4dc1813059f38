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


def cell_text(grid, row: int, col: int) -> str:
    return grid[row - 1][col - 1].strip()


def row_content(grid, row: int) -> str:
    return " | ".join(t for t in (c.strip() for c in grid[row - 1]) if t)


def column_content(grid, col: int) -> str:
    return " | ".join(t for t in (r[col - 1].strip() for r in grid) if t)


def content(grid, position: tuple) -> str:
    row, col = position
    if row is None:
        return column_content(grid, col)
    if col is None:
        return row_content(grid, row)
    return cell_text(grid, row, col)


def _non_empty_cells(grid) -> list[tuple]:
    return [(r + 1, c + 1) for r, line in enumerate(grid) for c, t in enumerate(line) if t.strip()]


def _first_non_empty(grid, start: tuple, step: tuple) -> Optional[tuple]:
    r, c = start[0] + step[0], start[1] + step[1]
    while 1 <= r <= len(grid) and 1 <= c <= len(grid[0]):
        if cell_text(grid, r, c):
            return (r, c)
        r, c = r + step[0], c + step[1]
    return None


def _line_position(grid, start: int, step: int, axis: str) -> Optional[int]:
    """The first non-empty row (or column) from `start` in direction `step` (`start` itself when 0)."""
    n = len(grid) if axis == "row" else len(grid[0])
    i = start + step
    while 1 <= i <= n:
        if (row_content(grid, i) if axis == "row" else column_content(grid, i)):
            return i
        if step == 0:
            return None
        i += step
    return None


def _clamp(x: float, n: int) -> int:
    return min(max(int(round(x)), 1), n)


def wrong_position(grid, target: tuple, rng: random.Random) -> Optional[tuple]:
    """A position drawn from N(target, 1) whose content is non-empty and differs from the target's;
    failing that after a number of draws, the nearest such position (ties in grid order)."""
    n_rows, n_cols = len(grid), len(grid[0])
    right = content(grid, target)

    def usable(p: tuple) -> bool:
        text = content(grid, p)
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


def _finish(kind, direction, anchor, target, grid, rng) -> Optional[Probe]:
    wrong = wrong_position(grid, target, rng)
    return Probe(kind, direction, anchor, target, wrong) if wrong else None


def _positional(kind: str, grid, rng: random.Random) -> Optional[Probe]:
    cells = _non_empty_cells(grid)
    if kind == "tsu_pcl":
        target = rng.choice(cells)
    elif kind == "tsu_prl":
        target = (rng.choice(sorted({r for r, _ in cells})), None)
    else:
        target = (None, rng.choice(sorted({c for _, c in cells})))
    return _finish(kind, None, None, target, grid, rng)


def _relative(kind: str, grid, rng: random.Random) -> Optional[Probe]:
    directions = {"tsu_rcl": ("below", "above", "left", "right"), "tsu_rrl": ("same", "above", "below"),
                  "tsu_rll": ("same", "left", "right")}[kind]
    options = []
    for anchor in _non_empty_cells(grid):
        for d in directions:
            if kind == "tsu_rcl":
                target = _first_non_empty(grid, anchor, STEPS[d])
            elif kind == "tsu_rrl":
                row = _line_position(grid, anchor[0], {"same": 0, "above": -1, "below": 1}[d], "row")
                target = None if row is None else (row, None)
            else:
                col = _line_position(grid, anchor[1], {"same": 0, "left": -1, "right": 1}[d], "column")
                target = None if col is None else (None, col)
            if target is not None:
                options.append((anchor, d, target))
    if not options:
        return None
    anchor, d, target = rng.choice(options)
    return _finish(kind, d, anchor, target, grid, rng)


PROBE_BUILDERS: dict[str, Callable] = {k: (_positional if k in ("tsu_pcl", "tsu_prl", "tsu_pll") else _relative)
                                       for k in PROBES}


def make_probe(kind: str, grid, rng: random.Random) -> Optional[Probe]:
    return PROBE_BUILDERS[kind](kind, grid, rng)


def render(probe: Probe, grid) -> tuple[str, str, str]:
    """(question, right option, wrong option) of the probe on this grid."""
    key = probe.kind if probe.direction is None else (probe.kind, probe.direction)
    fields = {"row": probe.target[0], "col": probe.target[1]}
    if probe.anchor is not None:
        fields = {"anchor": cell_text(grid, *probe.anchor), "row": probe.anchor[0], "col": probe.anchor[1]}
    return QUESTIONS[key].format(**fields), content(grid, probe.target), content(grid, probe.wrong)
