"""HTML rendering of a grid: spans kept, headers as <th> (thead for the column header rows), values as <td>.

Classes mark what a reader needs to see: `agg` aggregates (values and the headers naming them),
`group` row group labels, `split` the split corner, `indent` the indentation of an outline.
"""
from __future__ import annotations

import re

from generator_py.grid.cells import VALUE_ROLES, Cell, TableGrid


_SPECIAL = re.compile(r'[&<>"]')


def escape(text: str) -> str:
    if not _SPECIAL.search(text):  # most cells are plain numbers and labels
        return text
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _cell(c: Cell) -> str:
    tag = "td" if c.role in VALUE_ROLES else "th"
    attrs = ""
    if c.rowspan > 1:
        attrs += f' rowspan="{c.rowspan}"'
    if c.colspan > 1:
        attrs += f' colspan="{c.colspan}"'
    if c.is_aggregate:
        attrs += ' class="agg"'
    elif c.role == "row_group_label":
        attrs += ' class="group"'
    elif c.role == "corner_split":
        attrs += ' class="split"'
    elif c.role == "indent":
        attrs += ' class="indent"'
    # a spanning row header reads next to its group's first row, which holds the group's implicit aggregate
    if c.role == "row_header" and c.rowspan > 1:
        attrs += ' valign="top"'
    return f"<{tag}{attrs}>{escape(c.text)}</{tag}>"


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
