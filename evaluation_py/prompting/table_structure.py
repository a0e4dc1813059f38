"""What a code mode's prompt says of a table when the table stays out of it (`table_in_prompt: structure`).

The program reads the table from its variables (evaluation_py.sandbox.program); the prompt names them
and describes the table's structure as read from its HTML rendering: the grid's shape, the number of
column-header rows and row-header columns, every header label with its grid position and span, and
`df`'s shape and dtypes (what pandas' `df.info()` reports). No value cell (data or aggregate) is shown,
so the prompt's length depends on the headers only, as in TReB's code modes.
"""
from __future__ import annotations

import io

from generator_py.grid.cells import VALUE_ROLES, TableGrid
from generator_py.grid.html_parse import grid_from_html

# The prompt's values of the entry key `table_in_prompt`.
TABLE_IN_PROMPT = ("full", "structure")


def _label(cell) -> str:
    span = []
    if cell.rowspan > 1:
        span.append(f"{cell.rowspan} rows")
    if cell.colspan > 1:
        span.append(f"{cell.colspan} columns")
    where = f"(grid row {cell.grid_row}, column {cell.grid_col}" + (f", spans {' x '.join(span)}" if span else "") + ")"
    return f"{cell.text!r} {where}" if cell.text else f"(blank) {where}"


def _header_lines(grid: TableGrid) -> list[str]:
    headers = [c for c in grid.cells if c.role not in VALUE_ROLES]
    column = [c for c in headers if c.grid_row <= grid.header_rows]
    row = [c for c in headers if c.grid_row > grid.header_rows]
    lines = []
    for r in range(1, grid.header_rows + 1):
        cells = [_label(c) for c in column if c.grid_row == r]
        lines.append(f"  column-header row {r}: " + "; ".join(cells))
    if row:
        lines.append("  row headers (body rows, left to right):")
        for r in sorted({c.grid_row for c in row}):
            lines.append("    " + "; ".join(_label(c) for c in row if c.grid_row == r))
    return lines


def _df_lines(csv_text: str) -> list[str]:
    """`df` as the sandbox reads it (no header inference, every cell a string): shape, index, dtypes."""
    import pandas as pd

    df = pd.read_csv(io.StringIO(csv_text), header=None, dtype=str, keep_default_na=False) if csv_text else None
    if df is None:
        return ["`df`: None (the table has no CSV rendering)"]
    rows, cols = df.shape
    dtypes = sorted({str(t) for t in df.dtypes})
    return [f"`df`: pandas DataFrame, shape ({rows}, {cols}); RangeIndex: {rows} entries, 0 to {rows - 1}; "
            f"columns 0 to {cols - 1}; df row i is grid row i + 1 and df column j grid column j + 1 (header lines are "
            "ordinary rows, a spanned position is an empty string); "
            f"{rows} non-null values in every column; dtypes: {', '.join(dtypes)} (every cell a str)"]


def describe_structure(html_text: str, csv_text: str, variable: str, format_name: str) -> str:
    """The structure text of one table, naming `variable` (its `format_name` rendering) as the one to read."""
    grid = grid_from_html(html_text)
    values = sum(1 for c in grid.cells if c.role in VALUE_ROLES)
    lines = [
        f"The table is in the variable `{variable}` ({format_name} text); `html`, `markdown`, `csv` and `df` "
        "are defined too. Its cell values are not shown here: read them in your program.",
        f"Shape: {grid.n_rows} grid rows x {grid.n_columns} grid columns, of which {grid.header_rows} "
        f"column-header row(s) at the top and {grid.header_columns} row-header column(s) at the left; "
        f"{values} value cells.",
    ]
    if grid.caption:
        lines.append(f"Caption: {grid.caption!r}")
    lines.append("Header labels:")
    lines += _header_lines(grid)
    lines += _df_lines(csv_text)
    return "\n".join(lines)
