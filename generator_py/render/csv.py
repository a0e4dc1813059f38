"""CSV rendering of a grid: the flattened positions, every field quoted, spanned positions empty
(as in the HCT-QA release's CSVs), one line per grid row, a final line break."""
from __future__ import annotations

from generator_py.grid.cells import TableGrid


def render_csv(grid: TableGrid) -> str:
    return "".join('"' + '","'.join(t.replace('"', '""') for t in line) + '"\n' for line in grid.texts())
