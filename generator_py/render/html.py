"""HTML rendering of a grid: spans kept, headers as <th> (thead for the column header rows), values as <td>.

Classes mark what a reader needs to see: `agg` aggregates (values and the headers naming them),
`group` row group labels, `split` the split corner, `indent` the indentation of an outline.
"""
from __future__ import annotations

import functools
import re

from generator_py.grid.cells import VALUE_ROLES, Cell, TableGrid


_SPECIAL = re.compile(r'[&<>"]')


def escape(text: str) -> str:
    if not _SPECIAL.search(text):  # most cells are plain numbers and labels
        return text
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _cell(c: Cell) -> str:
    opening, closing = _tags(c.role, c.rowspan, c.colspan, c.is_aggregate)
    return opening + escape(c.text) + closing


@functools.cache
def _tags(role: str, rowspan: int, colspan: int, is_aggregate: bool) -> tuple[str, str]:
    """The opening and closing tag of a cell of this role, spans and aggregate flag (a few dozen kinds in a
    build, each made once)."""
    tag = "td" if role in VALUE_ROLES else "th"
    attrs = ""
    if rowspan > 1:
        attrs += f' rowspan="{rowspan}"'
    if colspan > 1:
        attrs += f' colspan="{colspan}"'
    if is_aggregate:
        attrs += ' class="agg"'
    elif role == "row_group_label":
        attrs += ' class="group"'
    elif role == "corner_split":
        attrs += ' class="split"'
    elif role == "indent":
        attrs += ' class="indent"'
    # a spanning row header reads next to its group's first row, which holds the group's implicit aggregate
    if role == "row_header" and rowspan > 1:
        attrs += ' valign="top"'
    return f"<{tag}{attrs}>", f"</{tag}>"


def render_html(grid: TableGrid) -> str:
    """One line of HTML. A grid row without an anchored cell (all covered by spans) writes no <tr>."""
    head, body = [], []
    for r, cells in enumerate(grid.rows(), start=1):
        if cells:
            (head if r <= grid.header_rows else body).append("<tr>" + "".join(_cell(c) for c in cells) + "</tr>")
    # padding with or without borders, so adjacent numbers never run together
    out = '<table border="1" cellpadding="4">' if grid.borders else '<table cellpadding="4">'
    if grid.caption is not None:
        out += f"<caption>{escape(grid.caption)}</caption>"
    if head:
        out += "<thead>" + "".join(head) + "</thead>"
    return out + "<tbody>" + "".join(body) + "</tbody></table>"
