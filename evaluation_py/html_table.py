"""Parse an HTML table into a full grid and derive the header paths of its value cells.

Only the standard library (`html.parser`). Works on the project's synthetic HCT HTML (thead of
spanning `<th>`, row headers as `<th>` with rowspans or an indented outline), on real tables
rendered by `table_render`, and on the HCT-QA release's synthetic HTML (no thead: the leading
rows made of `<th>` only are the column header rows).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Optional

__all__ = ["GridCell", "ValueCell", "ParsedTable", "parse_html_table", "normalize_text", "is_aggregate_label"]

MAX_SPAN = 1000

AGGREGATE_TERMS = frozenset(
    {"total", "totals", "subtotal", "sum", "average", "avg", "mean", "min", "minimum", "max", "maximum", "median", "overall"}
)
AGGREGATE_CLASSES = frozenset({"agg", "aggregate", "total", "subtotal"})


def normalize_text(text: str) -> str:
    """Collapse whitespace (non-breaking spaces included) and trim."""
    return " ".join(text.replace("\xa0", " ").split())


def is_aggregate_label(label: str) -> bool:
    """A label naming an aggregation: its first or last word is Total, Sum, Average, Mean, Min, Max, ..."""
    words = re.findall(r"[a-z0-9]+", label.lower())
    return bool(words) and (words[0] in AGGREGATE_TERMS or words[-1] in AGGREGATE_TERMS)


@dataclass
class GridCell:
    """One position of the expanded grid. `anchor` is the (row, col) of the HTML cell covering it."""

    row: int
    col: int
    text: str
    is_header: bool
    classes: tuple[str, ...]
    anchor: tuple[int, int]
    rowspan: int = 1
    colspan: int = 1
    padding: bool = False  # True for positions no HTML cell covers (ragged rows)

    @property
    def is_anchor(self) -> bool:
        return self.anchor == (self.row, self.col)


@dataclass
class ValueCell:
    """A non-header cell of a body row (one per HTML cell, at its anchor) with its header paths."""

    row: int
    col: int
    text: str
    classes: tuple[str, ...]
    row_path: tuple[str, ...]
    column_path: tuple[str, ...]
    is_aggregate: bool  # marked by a class (agg, total, ...) or an aggregation label on a path
    aggregate_by_class: bool = False


@dataclass
class ParsedTable:
    caption: Optional[str]
    grid: list[list[GridCell]]
    header_rows: list[int]
    value_cells: list[ValueCell] = field(default_factory=list)
    group_label_rows: list[int] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return len(self.grid)

    @property
    def n_columns(self) -> int:
        return len(self.grid[0]) if self.grid else 0

    def texts(self) -> list[list[str]]:
        """The grid as text, spanned positions repeating their anchor's text."""
        return [[c.text for c in row] for row in self.grid]

    def row_labels(self) -> set[str]:
        return {label for v in self.value_cells for label in v.row_path}

    def column_labels(self) -> set[str]:
        return {label for v in self.value_cells for label in v.column_path}


# ----------------------------------------------------------------------------- HTML -> raw rows


@dataclass
class _RawCell:
    text_parts: list[str]
    is_header: bool
    classes: tuple[str, ...]
    rowspan: int
    colspan: int


@dataclass
class _RawRow:
    in_thead: bool
    cells: list[_RawCell] = field(default_factory=list)


def _span(value: Optional[str]) -> int:
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return 1
    return min(max(n, 1), MAX_SPAN)


class _TableParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0  # nesting depth of <table>
        self.done = False
        self.rows: list[_RawRow] = []
        self.caption_parts: Optional[list[str]] = None
        self.in_caption = False
        self.section: Optional[str] = None
        self.row: Optional[_RawRow] = None
        self.cell: Optional[_RawCell] = None
        self.skip = 0  # inside <script>/<style>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
            return
        if self.done:
            return
        if tag == "table":
            self.depth += 1
            if self.depth == 1:
                return
        if self.depth == 0:
            return
        if self.depth > 1:  # nested table: its text joins the enclosing cell
            if tag in ("br", "p", "div", "tr", "td", "th") and self.cell is not None:
                self.cell.text_parts.append(" ")
            return
        a = {k.lower(): v for k, v in attrs}
        if tag == "caption":
            self.in_caption = True
            self.caption_parts = []
        elif tag in ("thead", "tbody", "tfoot"):
            self._close_row()
            self.section = tag
        elif tag == "tr":
            self._close_row()
            self.row = _RawRow(in_thead=self.section == "thead")
        elif tag in ("td", "th"):
            self._close_cell()
            if self.row is None:
                self.row = _RawRow(in_thead=self.section == "thead")
            classes = tuple((a.get("class") or "").split())
            self.cell = _RawCell([], tag == "th" or self.section == "thead", classes, _span(a.get("rowspan")), _span(a.get("colspan")))
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
                self._close_row()
                self.done = True
            return
        if self.depth > 1:
            return
        if tag == "caption":
            self.in_caption = False
        elif tag in ("td", "th"):
            self._close_cell()
        elif tag == "tr":
            self._close_row()
        elif tag in ("thead", "tbody", "tfoot"):
            self._close_row()
            self.section = None
        elif tag in ("p", "div", "li"):
            self._add_text(" ")

    def handle_data(self, data: str) -> None:
        if self.skip or self.done or self.depth == 0:
            return
        self._add_text(data)

    def _add_text(self, data: str) -> None:
        if self.in_caption and self.caption_parts is not None:
            self.caption_parts.append(data)
        elif self.cell is not None:
            self.cell.text_parts.append(data)

    def _close_cell(self) -> None:
        if self.cell is not None and self.row is not None:
            self.row.cells.append(self.cell)
        self.cell = None

    def _close_row(self) -> None:
        self._close_cell()
        if self.row is not None:
            self.rows.append(self.row)
        self.row = None


# ----------------------------------------------------------------------------- grid


def _expand(rows: list[_RawRow]) -> tuple[list[list[Optional[GridCell]]], list[bool]]:
    grid: list[list[Optional[GridCell]]] = []
    for r, raw in enumerate(rows):
        while len(grid) <= r:
            grid.append([])
        c = 0
        for raw_cell in raw.cells:
            line = grid[r]
            while c < len(line) and line[c] is not None:
                c += 1
            text = normalize_text("".join(raw_cell.text_parts))
            rs = min(raw_cell.rowspan, MAX_SPAN)
            cs = raw_cell.colspan
            for dr in range(rs):
                rr = r + dr
                if dr and rr >= len(rows):
                    break  # a rowspan past the last row is cut
                while len(grid) <= rr:
                    grid.append([])
                target = grid[rr]
                for dc in range(cs):
                    cc = c + dc
                    while len(target) <= cc:
                        target.append(None)
                    if target[cc] is None:
                        target[cc] = GridCell(
                            row=rr, col=cc, text=text, is_header=raw_cell.is_header, classes=raw_cell.classes,
                            anchor=(r, c), rowspan=rs, colspan=cs,
                        )
            c += cs
    in_thead = [raw.in_thead for raw in rows]
    return grid, in_thead


def _dedupe(labels: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for label in labels:
        if label and (not out or out[-1] != label):
            out.append(label)
    return tuple(out)


def parse_html_table(html_text: str) -> ParsedTable:
    """Parse the first `<table>` of `html_text` (nested tables are read as text of their cell).

    Raises ValueError when there is no table with at least one cell.
    """
    parser = _TableParser()
    parser.feed(html_text)
    parser.close()
    if parser.row is not None or parser.cell is not None:  # unclosed table
        parser._close_row()
    rows = [r for r in parser.rows if r.cells]
    if not rows:
        raise ValueError("no HTML table with cells found")
    raw_grid, in_thead = _expand(rows)
    n_cols = max(len(r) for r in raw_grid)
    grid: list[list[GridCell]] = []
    for r, line in enumerate(raw_grid):
        out_line = []
        for c in range(n_cols):
            cell = line[c] if c < len(line) else None
            if cell is None:
                cell = GridCell(row=r, col=c, text="", is_header=False, classes=(), anchor=(r, c), padding=True)
            out_line.append(cell)
        grid.append(out_line)
    caption = normalize_text("".join(parser.caption_parts)) if parser.caption_parts is not None else None
    table = ParsedTable(caption=caption or None, grid=grid, header_rows=_header_rows(grid, in_thead))
    _derive_paths(table)
    return table


def _header_rows(grid: list[list[GridCell]], in_thead: list[bool]) -> list[int]:
    if any(in_thead):
        return [r for r, flag in enumerate(in_thead) if flag]
    header: list[int] = []
    for r, line in enumerate(grid):
        if r >= len(grid) - 1:
            break
        if all(cell.is_header or cell.padding for cell in line):
            header.append(r)
        else:
            break
    return header


def _derive_paths(table: ParsedTable) -> None:
    grid = table.grid
    header_set = set(table.header_rows)
    # Column paths per column.
    col_paths: list[tuple[str, ...]] = []
    for c in range(table.n_columns):
        col_paths.append(_dedupe([grid[r][c].text for r in table.header_rows]))

    # Outline stack entries: [level, labels, is_group_row, level of its first child row].
    # A group label row (labels, no values) heads the following rows until a group label at the
    # same or an outer level; when its first child is indented deeper, a row back at the group's
    # own level ends the group too. A value row heads only the rows indented deeper than it.
    stack: list[list] = []
    for r, line in enumerate(grid):
        if r in header_set:
            continue
        has_values = any((not cell.is_header) and cell.text and not cell.padding for cell in line)
        header_cells = [cell for cell in line if cell.is_header]
        own_labels = _dedupe([cell.text for cell in header_cells])
        level = next((cell.col for cell in header_cells if cell.text), None)
        if level is None:
            stack = [e for e in stack if e[2]]
        elif not has_values:
            stack = [e for e in stack if e[0] < level]
        else:
            stack = [
                e for e in stack
                if e[0] < level or (e[2] and e[0] == level and e[3] in (None, level))
            ]
        for e in stack:
            if e[2] and e[3] is None and level is not None:
                e[3] = level
        inherited_labels = [label for e in stack for label in e[1]]
        if level is not None and own_labels:
            stack.append([level, own_labels, not has_values, None])
        if not has_values:
            if own_labels:
                table.group_label_rows.append(r)
            continue
        for c, cell in enumerate(line):
            if cell.is_header or cell.padding or not cell.text or not cell.is_anchor:
                continue
            left = [line[k].text for k in range(c) if line[k].is_header]
            row_path = _dedupe(inherited_labels + left)
            column_path = col_paths[c]
            by_class = any(
                cls.lower() in AGGREGATE_CLASSES or cls.lower().startswith("outline") for cls in cell.classes
            )
            by_label = any(is_aggregate_label(label) for label in row_path + column_path)
            table.value_cells.append(
                ValueCell(
                    row=r, col=c, text=cell.text, classes=cell.classes, row_path=row_path,
                    column_path=column_path, is_aggregate=by_class or by_label, aggregate_by_class=by_class,
                )
            )
