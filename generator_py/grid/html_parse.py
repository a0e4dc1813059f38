"""Read an HTML table (ours, or the HCT-QA release's) into anchored cells, and into a `TableGrid`.

Only the standard library (`html.parser`). `read_html_table` gives the raw rows of the first
`<table>` (nested tables are read as text of their cell); `place_cells` anchors each cell the way
browsers do (a cell takes the first position no earlier span covers); `grid_from_html` turns that
into the one grid the renderers read, with roles from the tags and classes our HTML renderer writes.

Plain markup (tags with simple attributes, text, character references: what our renderer writes) is cut into
tags and text by two patterns, about three times faster than
`html.parser`, and handed to the same handler; anything else (a comment, a declaration, `<script>`, a `<`
that opens no tag) goes through `html.parser`. Both give the handler the same calls on plain markup.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from typing import Optional

from generator_py.grid.cells import Cell, TableGrid, check_cells, normalize_text

MAX_SPAN = 1000


@dataclass
class HtmlCell:
    """A `<td>`/`<th>` as written: text (normalized), header or not, classes, declared spans."""

    text: str
    is_header: bool
    classes: tuple[str, ...]
    rowspan: int
    colspan: int


@dataclass
class HtmlRow:
    in_thead: bool
    cells: list[HtmlCell] = field(default_factory=list)


@dataclass
class HtmlTable:
    caption: Optional[str]
    rows: list[HtmlRow]  # rows with at least one cell
    attrs: dict[str, Optional[str]]  # of the <table> tag


@dataclass(frozen=True)
class PlacedCell:
    """A cell at its 0-based anchor; `rowspan` is the declared one (a span past the last row is cut on use)."""

    row: int
    col: int
    cell: HtmlCell


def _span(value: Optional[str]) -> int:
    n = _SPANS.get(value)
    if n is None:
        try:
            n = min(max(int(str(value).strip()), 1), MAX_SPAN)
        except (TypeError, ValueError):
            n = 1
        if len(_SPANS) < 4096:
            _SPANS[value] = n
    return n


_SPANS: dict = {}  # a span attribute's text -> the span (tables repeat a handful)


@dataclass
class _OpenCell:
    parts: list[str]
    is_header: bool
    classes: tuple[str, ...]
    rowspan: int
    colspan: int


class _TableParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # nesting depth of <table>
        self.done = False
        self.rows: list[HtmlRow] = []
        self.table_attrs: dict[str, Optional[str]] = {}
        self.caption_parts: Optional[list[str]] = None
        self.in_caption = False
        self.section: Optional[str] = None
        self.row: Optional[HtmlRow] = None
        self.cell: Optional[_OpenCell] = None
        self.skip = 0  # inside <script>/<style>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
            return
        if self.done:
            return
        a = {k.lower(): v for k, v in attrs}
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                self.table_attrs = a
                return
        if self.depth == 0:
            return
        if self.depth > 1:  # nested table: its text joins the enclosing cell
            if tag in ("br", "p", "div", "tr", "td", "th") and self.cell is not None:
                self.cell.parts.append(" ")
            return
        if tag == "caption":
            self.in_caption = True
            self.caption_parts = []
        elif tag in ("thead", "tbody", "tfoot"):
            self.close_row()
            self.section = tag
        elif tag == "tr":
            self.close_row()
            self.row = HtmlRow(in_thead=self.section == "thead")
        elif tag in ("td", "th"):
            self._close_cell()
            if self.row is None:
                self.row = HtmlRow(in_thead=self.section == "thead")
            classes = tuple((a.get("class") or "").split())
            self.cell = _OpenCell([], tag == "th" or self.section == "thead", classes,
                                  _span(a.get("rowspan")), _span(a.get("colspan")))
        elif tag in ("br", "p", "div", "li"):
            self._add_text(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if tag in ("script", "style"):
            return
        self.handle_starttag(tag, attrs)
        if tag == "table":
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
            return
        if self.done or self.depth == 0:
            return
        if tag == "table":
            self.depth -= 1
            if self.depth == 0:
                self.close_row()
                self.done = True
            return
        if self.depth > 1:
            return
        if tag == "caption":
            self.in_caption = False
        elif tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self.close_row()
        elif tag in ("thead", "tbody", "tfoot"):
            self.close_row()
            self.section = None
        elif tag in ("p", "div", "li"):
            self._add_text(" ")

    def handle_data(self, data: str) -> None:
        if self.skip or self.done or self.depth == 0:
            return
        self._add_text(data)

    def takes_whole_cells(self) -> bool:
        """Whether a `<td>text</td>` met now is a cell of the table: inside it, not nested, no caption open."""
        return self.depth == 1 and not self.done and not self.skip and not self.in_caption

    def handle_cell(self, tag: str, attrs: list[tuple[str, Optional[str]]], text: str) -> None:
        """`<td>`/`<th>` with its text and end tag, when `takes_whole_cells`: what the three calls do, in one."""
        self.handle_starttag(tag, attrs)
        if text:
            self.cell.parts.append(text)
        self._close_cell()

    def _add_text(self, data: str) -> None:
        if self.in_caption and self.caption_parts is not None:
            self.caption_parts.append(data)
        elif self.cell is not None:
            self.cell.parts.append(data)

    def _close_cell(self) -> None:
        if self.cell is not None and self.row is not None:
            c = self.cell
            self.row.cells.append(HtmlCell(normalize_text("".join(c.parts)), c.is_header, c.classes, c.rowspan, c.colspan))
        self.cell = None

    def close_row(self) -> None:
        self._close_cell()
        if self.row is not None:
            self.rows.append(self.row)
        self.row = None


_ATTR = r"""\s+[a-zA-Z_:][-a-zA-Z0-9_:.]*(?:\s*=\s*(?:"[^"<]*"|'[^'<]*'|[-a-zA-Z0-9_.:]+))?"""
# text up to the next `<`, or a start tag with plain attributes, or an end tag
_PLAIN_RE = re.compile(r"([^<]+)|<(?:([a-zA-Z][a-zA-Z0-9]*)((?:%s)*)\s*(/?)|/([a-zA-Z][a-zA-Z0-9]*)\s*)>" % _ATTR)
_ATTR_RE = re.compile(r"""\s+([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*("[^"<]*"|'[^'<]*'|[-a-zA-Z0-9_.:]+))?""")
_RAW_TEXT_TAGS = ("script", "style")  # html.parser reads their content as raw text


# a cell whose text holds no markup, its end tag right after: one match instead of three (most cells)
_CELL_RE = re.compile(r"<(t[dh])((?:%s)*)\s*>([^<]*)</\1\s*>" % _ATTR)


def _attr_pairs(attrs: str) -> list[tuple[str, Optional[str]]]:
    pairs = []
    for name, value in _ATTR_RE.findall(attrs):
        if not value:
            pairs.append((name.lower(), None))
        else:
            if value[0] in "\"'":
                value = value[1:-1]
            pairs.append((name.lower(), unescape(value) if "&" in value else value))
    return pairs


def _feed_plain(parser: _TableParser, html_text: str) -> bool:
    """Hand plain markup (module doc) to `parser` as html.parser would; False when `html_text` is not plain
    (the parser then holds part of it: start again with a new one)."""
    pos = 0
    end = len(html_text)
    data, start_tag, startend_tag, end_tag = (parser.handle_data, parser.handle_starttag, parser.handle_startendtag,
                                              parser.handle_endtag)
    plain, cell = _PLAIN_RE.match, _CELL_RE.match
    while pos < end:
        if html_text.startswith("<t", pos) and parser.takes_whole_cells():
            m = cell(html_text, pos)
            if m is not None:
                tag, attrs, text = m.groups()
                parser.handle_cell(tag, _attr_pairs(attrs) if attrs else [], unescape(text) if "&" in text else text)
                pos = m.end()
                continue
        m = plain(html_text, pos)
        if m is None:  # a `<` that opens no plain tag
            return False
        pos = m.end()
        text, start, attrs, closed, close = m.groups()
        if text is not None:
            data(unescape(text) if "&" in text else text)
        elif start is not None:
            tag = start.lower()
            if tag in _RAW_TEXT_TAGS:
                return False
            (startend_tag if closed else start_tag)(tag, _attr_pairs(attrs) if attrs else [])
        else:
            end_tag(close.lower())
    return True


def read_html_table(html_text: str) -> HtmlTable:
    """The first `<table>` of `html_text`. Raises ValueError when there is no table with at least one cell."""
    parser = _TableParser()
    if not _feed_plain(parser, html_text):
        parser = _TableParser()
        parser.feed(html_text)
        parser.close()
    parser.close_row()  # an unclosed table
    rows = [r for r in parser.rows if r.cells]
    if not rows:
        raise ValueError("no HTML table with cells found")
    caption = normalize_text("".join(parser.caption_parts)) if parser.caption_parts is not None else None
    return HtmlTable(caption=caption or None, rows=rows, attrs=parser.table_attrs)


def place_cells(rows: list[HtmlRow]) -> list[PlacedCell]:
    """Anchor every cell, in source order: a cell starts at the first position of its row that no
    earlier cell covers; a rowspan past the last row is cut; where spans overlap the earlier wins."""
    taken: list[list[bool]] = [[] for _ in rows]
    placed: list[PlacedCell] = []
    for r, row in enumerate(rows):
        c = 0
        for cell in row.cells:
            line = taken[r]
            while c < len(line) and line[c]:
                c += 1
            placed.append(PlacedCell(r, c, cell))
            for rr in range(r, min(r + cell.rowspan, len(rows))):
                target = taken[rr]
                if len(target) < c + cell.colspan:
                    target.extend([False] * (c + cell.colspan - len(target)))
                for cc in range(c, c + cell.colspan):
                    target[cc] = True
            c += cell.colspan
    return placed


def header_row_count(rows: list[HtmlRow], placed: list[PlacedCell]) -> int:
    """Rows in `<thead>`; without one, the leading rows where every position a cell covers is a `<th>`
    (one row left for the body)."""
    if any(r.in_thead for r in rows):
        return sum(1 for r in rows if r.in_thead)
    owner = _owners(len(rows), placed)
    n = 0
    while n < len(rows) - 1 and all(p is None or p.cell.is_header for p in owner[n]):
        n += 1
    return n


def _owners(n_rows: int, placed: list[PlacedCell]) -> list[list[Optional[PlacedCell]]]:
    owner: list[list[Optional[PlacedCell]]] = [[] for _ in range(n_rows)]
    for p in placed:
        for rr in range(p.row, min(p.row + p.cell.rowspan, n_rows)):
            line = owner[rr]
            if len(line) < p.col + p.cell.colspan:
                line.extend([None] * (p.col + p.cell.colspan - len(line)))
            for cc in range(p.col, p.col + p.cell.colspan):
                if line[cc] is None:
                    line[cc] = p
    return owner


def grid_from_html(html_text: str) -> TableGrid:
    """The grid of an HTML table. Roles: header rows give `column_header` (`corner` left of the row
    headers, `corner_split` for class split); body `<th>` give `row_header` (`row_group_label` for
    class group, `indent` for class indent); `<td>` give `data` (`aggregate` for class agg). The row
    header columns are the leading positions every body row covers with `<th>`.
    """
    table = read_html_table(html_text)
    placed = place_cells(table.rows)
    n_rows = len(table.rows)
    n_header = header_row_count(table.rows, placed)
    owner = _owners(n_rows, placed)
    leading = []
    for r in range(n_header, n_rows):
        line = owner[r]
        k = 0
        while k < len(line) and line[k] is not None and line[k].cell.is_header:
            k += 1
        leading.append(k)
    header_columns = min(leading, default=0)
    cells = []
    for p in placed:
        c = p.cell
        if p.row < n_header:
            role = "corner_split" if "split" in c.classes else "corner" if p.col < header_columns else "column_header"
        elif c.is_header:
            role = "row_group_label" if "group" in c.classes else "indent" if "indent" in c.classes else "row_header"
        else:
            role = "aggregate" if "agg" in c.classes else "data"
        cells.append(Cell(p.row + 1, p.col + 1, min(c.rowspan, n_rows - p.row), c.colspan, role, c.text,
                          "agg" in c.classes))
    check_cells(cells, "HTML table")
    border = table.attrs.get("border")
    return TableGrid(tuple(cells), header_rows=n_header, header_columns=header_columns, caption=table.caption,
                     borders=border is not None and border.strip() not in ("", "0"))
