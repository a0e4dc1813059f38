"""Changes of a table's grid that a question's own view shows (`grid_change` of a question instance): the table
perturbed for TReB's robustness subtask, one value made implausible for its plausibility subtask, one column
shown alone for its column naming. Each change is a JSON object with a `kind`; `apply_change` makes the changed
grid from the table's grid and the header paths of its value cells (`paths`: (grid_row, grid_col) -> (row
group, column group), as int_table_grid holds them). A change that cannot be made on the grid is a ValueError.

Kinds:

- `permute_rows` / `permute_columns` (`seed`): the data rows (columns) of each group, those sharing their parent
  header path, the header cells spanning them and the shape of their cells, put in a random order within the
  group; aggregate rows (columns) and the spanning headers stay where they are, so each value keeps its headers.
- `header_noise` (`seed`): about half of the header labels re-cased (upper, lower) or re-spaced (doubled spaces,
  a space at each end), at least one changed; the words stay the same.
- `content_variant` (`variant` letters or numbers, `seed`, `keep`): every header label but those in `keep` (the
  labels a question names) and the aggregate labels replaced, consistently, by a random string of letters or
  digits that no other text of the grid has (TabIS's content variants, kept answerable).
- `set_value` (`row_path`, `col_path`, `text`): the one data cell of those header paths shows `text`.
- `column_view` (`col_path`): the row headers and the one column of data whose column header path is
  `col_path`, that column's innermost header shown empty.
"""
from __future__ import annotations

import random
import string
from dataclasses import replace
from typing import Mapping, Optional

from ..grid.cells import Cell, TableGrid

KINDS = ("permute_rows", "permute_columns", "header_noise", "content_variant", "set_value", "column_view")
LABEL_ROLES = frozenset({"column_header", "row_header", "row_group_label", "row_attribute_name"})
RENAMED_ROLES = LABEL_ROLES | {"corner", "corner_split"}
NOISE = ("upper", "lower", "spaced")

Paths = Mapping[tuple[int, int], tuple[tuple[str, ...], tuple[str, ...]]]


def apply_change(grid: TableGrid, change: Mapping, paths: Paths, where: str = "") -> TableGrid:
    """`grid` changed as `change` says (module docstring); `where` names the question in errors."""
    kind = change.get("kind")
    if kind in ("permute_rows", "permute_columns"):
        return _permuted(grid, paths, kind == "permute_rows", random.Random(change["seed"]), where)
    if kind == "header_noise":
        return _noisy(grid, random.Random(change["seed"]), where)
    if kind == "content_variant":
        return _variant(grid, change["variant"], random.Random(change["seed"]), set(change.get("keep", ())), where)
    if kind == "set_value":
        return _set_value(grid, paths, tuple(change["row_path"]), tuple(change["col_path"]), change["text"], where)
    if kind == "column_view":
        return _column_view(grid, paths, tuple(change["col_path"]), where)
    raise ValueError(f"{where}: grid change kind {kind!r} is not one of {', '.join(KINDS)}")


def permutable_groups(grid: TableGrid, paths: Paths, rows: bool) -> list[list[int]]:
    """The groups of grid rows (`rows`) or columns whose data may be put in another order: lines holding data
    cells of one header path, no aggregate header, and cells of one span across (their own cells), grouped by
    their parent header path, the cells spanning them and the shape of their own cells. Groups of two or more."""
    own: dict[int, list[Cell]] = {}
    spanning: dict[int, set] = {}
    excluded: set[int] = set()
    line_paths: dict[int, set] = {}
    for c in grid.cells:
        start, span = (c.grid_row, c.rowspan) if rows else (c.grid_col, c.colspan)
        if span > 1:
            for k in range(start, start + span):
                spanning.setdefault(k, set()).add((c.grid_row, c.grid_col))
        else:
            own.setdefault(start, []).append(c)
        if c.is_header and c.is_aggregate:  # a total's or an average's line
            excluded.update(range(start, start + span))
        if c.role in ("data", "aggregate"):
            groups = paths.get((c.grid_row, c.grid_col))
            if groups is not None:
                line_paths.setdefault(start, set()).add(tuple(groups[0] if rows else groups[1]))
    has_data = {(c.grid_row if rows else c.grid_col) for c in grid.cells if c.role == "data"}
    keyed: dict[tuple, list[int]] = {}
    for k in sorted(has_data - excluded):
        if len(line_paths.get(k, ())) != 1:
            continue
        (path,) = line_paths[k]
        if not path:
            continue
        shape = tuple(sorted(((c.grid_col, c.colspan) if rows else (c.grid_row, c.rowspan)) + (c.role, c.is_aggregate)
                             for c in own.get(k, ())))
        keyed.setdefault((tuple(path[:-1]), frozenset(spanning.get(k, ())), shape), []).append(k)
    return [ks for ks in keyed.values() if len(ks) >= 2]


def _permuted(grid: TableGrid, paths: Paths, rows: bool, rng: random.Random, where: str) -> TableGrid:
    groups = permutable_groups(grid, paths, rows)
    if not groups:
        raise ValueError(f"{where}: the table has no group of two or more {'rows' if rows else 'columns'} to permute")
    moved_to: dict[int, int] = {}
    for ks in groups:
        order = list(ks)
        rng.shuffle(order)
        moved_to.update(zip(order, ks))  # the line at order[i] moves to ks[i]
    if all(a == b for a, b in moved_to.items()):  # no group moved: swap the first group's first two lines
        a, b = groups[0][:2]
        moved_to[a], moved_to[b] = b, a
    cells = []
    for c in grid.cells:
        start, span = (c.grid_row, c.rowspan) if rows else (c.grid_col, c.colspan)
        if span == 1 and start in moved_to:
            c = c._replace(grid_row=moved_to[start]) if rows else c._replace(grid_col=moved_to[start])
        cells.append(c)
    return replace(grid, cells=tuple(cells))


def _labels(grid: TableGrid, roles=LABEL_ROLES) -> list[int]:
    return [i for i, c in enumerate(grid.cells) if c.role in roles and not c.is_aggregate and c.text.strip()]


def _noise(text: str, how: str) -> str:
    if how == "upper":
        return text.upper()
    if how == "lower":
        return text.lower()
    return " " + "  ".join(text.split()) + " "


def _noisy(grid: TableGrid, rng: random.Random, where: str) -> TableGrid:
    labels = _labels(grid)
    cells = list(grid.cells)
    changed = 0
    for i in labels:
        if rng.random() < 0.5:
            text = _noise(cells[i].text, rng.choice(NOISE))
            changed += text != cells[i].text
            cells[i] = cells[i]._replace(text=text)
    if not changed:
        worded = [i for i in labels if any(ch.isalpha() for ch in cells[i].text)] or labels
        if not worded:
            raise ValueError(f"{where}: the table has no header label to add noise to")
        cells[worded[0]] = cells[worded[0]]._replace(text=_noise(cells[worded[0]].text, "spaced"))
    return replace(grid, cells=tuple(cells))


def _variant(grid: TableGrid, variant: str, rng: random.Random, keep: set, where: str) -> TableGrid:
    if variant not in ("letters", "numbers"):
        raise ValueError(f"{where}: content variant {variant!r} is not letters or numbers")
    renamed = [i for i in _labels(grid, RENAMED_ROLES) if grid.cells[i].text.strip() not in keep]
    if not renamed:
        raise ValueError(f"{where}: every header label of the table is one the question names; none to replace")
    taken = {c.text.strip().lower() for c in grid.cells} | {k.lower() for k in keep}
    mapping: dict[str, str] = {}
    cells = list(grid.cells)
    for i in renamed:
        text = cells[i].text.strip()
        if text not in mapping:
            s = _random_text(variant, rng)
            while s in taken:
                s = _random_text(variant, rng)
            taken.add(s)
            mapping[text] = s
        cells[i] = cells[i]._replace(text=mapping[text])
    return replace(grid, cells=tuple(cells))


def _random_text(variant: str, rng: random.Random) -> str:
    n = rng.randint(3, 8)
    if variant == "letters":
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))
    return rng.choice("123456789") + "".join(rng.choice(string.digits) for _ in range(n - 1))


def _data_cell(grid: TableGrid, paths: Paths, row_path: tuple, col_path: tuple, where: str) -> int:
    hits = [i for i, c in enumerate(grid.cells) if c.role == "data"
            and paths.get((c.grid_row, c.grid_col)) == (row_path, col_path)]
    if len(hits) != 1:
        raise ValueError(f"{where}: {len(hits)} data cells have the header paths {list(row_path)} x {list(col_path)}")
    return hits[0]


def _set_value(grid: TableGrid, paths: Paths, row_path: tuple, col_path: tuple, text: str, where: str) -> TableGrid:
    i = _data_cell(grid, paths, row_path, col_path, where)
    cells = list(grid.cells)
    cells[i] = cells[i]._replace(text=text)
    return replace(grid, cells=tuple(cells))


def _column_view(grid: TableGrid, paths: Paths, col_path: tuple, where: str) -> TableGrid:
    columns = {c.grid_col for c in grid.cells if c.role == "data" and paths.get((c.grid_row, c.grid_col), ((), ()))[1]
               == col_path}
    if len(columns) != 1:
        raise ValueError(f"{where}: {len(columns)} grid columns hold the data of column header path {list(col_path)}")
    (target,) = columns
    h = grid.header_columns
    if target <= h:
        raise ValueError(f"{where}: column {target} of header path {list(col_path)} is a row-header column")

    def kept(col: int) -> Optional[int]:
        return col if col <= h else (h + 1 if col == target else None)

    cells: list[Cell] = []
    leaf: Optional[int] = None
    for c in grid.cells:
        new = [kept(k) for k in range(c.grid_col, c.grid_col + c.colspan)]
        new = [k for k in new if k is not None]
        if not new:
            continue
        cell = c._replace(grid_col=new[0], colspan=len(new))
        if c.is_header and c.grid_row <= grid.header_rows and c.role == "column_header" and target in range(
                c.grid_col, c.grid_col + c.colspan) and c.text == col_path[-1]:
            if leaf is None or cells[leaf].grid_row < c.grid_row:
                leaf = len(cells)
        cells.append(cell)
    if leaf is None:
        raise ValueError(f"{where}: no column header {col_path[-1]!r} above column {target}")
    cells[leaf] = cells[leaf]._replace(text="")
    return TableGrid(tuple(cells), header_rows=grid.header_rows, header_columns=h, caption=grid.caption,
                     borders=grid.borders)
