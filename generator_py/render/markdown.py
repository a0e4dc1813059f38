"""Markdown rendering of a grid: a pipe table of the flattened positions (spanned positions empty),
the first grid row as its header line, `|` escaped, a final line break."""
from __future__ import annotations

from generator_py.grid.cells import TableGrid


def render_markdown(grid: TableGrid) -> str:
    lines = ["| " + " | ".join(t.replace("|", "\\|") for t in line) + " |" for line in grid.texts()]
    if lines:
        lines[0] += "\n|" + " --- |" * grid.n_columns
    return "".join(line + "\n" for line in lines)
