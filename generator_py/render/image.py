"""A table's anchored cell grid drawn as a PNG, for vision models.

Input is the shape of `int_hct_cells` (one `ImageCell` per anchored cell: grid position, spans, role,
aggregate flag, text) plus the table-level fields the HTML uses (caption, borders): `ImageTable`.
Any object with those attributes works as a cell (`image_table` copies them), so another grid
relation feeds this module through a two-line adapter.

What the picture shows, mirroring the HTML rendering (macros/hct_render.sql):

- every cell a box over the grid positions it spans (merged cells are one box, no line through them);
- header cells (the HTML's <th>) bold on a shaded ground; row group labels a darker shade;
- aggregates (the HTML's class="agg"), values and aggregate header labels, on an amber ground;
- the split corner (class="split") with a diagonal, row attributes below it, column attributes above;
- grid lines only when the table has borders; the caption centred above the table.

Sizes come from measuring every text with the font (DejaVu Sans, which ships inside matplotlib, so
no OS font is needed): no text is clipped. `layout_table` gives the geometry, `render_png` the
bytes; PNGs carry no timestamp or other varying metadata, so the same table gives the same bytes.
`write_table_images` renders many tables in worker processes and writes `<table_id>.png` files.

Plain Python: no dbt imports.
"""
from __future__ import annotations

import hashlib
import json
import importlib.util
import os
import re
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, NamedTuple, Optional, Sequence

from PIL import Image, ImageDraw, ImageFont

from generator_py.core.child_process import map_in_interpreters

FONT_SIZE = 13
PAD_X = 6          # text to the cell's edge, left and right
PAD_Y = 4          # text to the cell's edge, above and below
MIN_COLUMN_WIDTH = 16  # an empty column (indentation) still reads as a step
MARGIN = 8
CAPTION_GAP = 6
PNG_COMPRESS_LEVEL = 3  # zlib's: as small as Pillow's filtered level 1 here, in half its time
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

WHITE = (255, 255, 255)
INK = (20, 20, 20)
LINE = (64, 64, 64)
HEADER_FILL = (221, 227, 234)
GROUP_LABEL_FILL = (196, 208, 222)
AGGREGATE_FILL = (251, 236, 196)
AGGREGATE_HEADER_FILL = (238, 214, 160)

HEADER_ROLES = frozenset({"column_header", "row_header", "row_group_label", "indent", "corner", "corner_split",
                          "row_attribute_name"})
VALUE_ROLES = frozenset({"data", "aggregate", "empty"})
ROLES = HEADER_ROLES | VALUE_ROLES
# roles on the row side: extra width of a span goes to its last column, so indentation stays narrow
ROW_SIDE_ROLES = frozenset({"row_header", "row_group_label", "indent", "corner", "corner_split", "row_attribute_name"})
SPLIT_SEPARATOR = " \\ "

# Safe file names: a table id becomes `<table_id>.png` only when it cannot leave the folder.
TABLE_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class ImageCell(NamedTuple):
    """One anchored cell of a grid (1-based row and column of its top-left position).

    A named tuple, not a dataclass: a default build draws ~720k of them, and they cross to workers.
    """
    grid_row: int
    grid_col: int
    rowspan: int
    colspan: int
    role: str
    is_aggregate: bool
    text: str


@dataclass(frozen=True)
class ImageTable:
    table_id: str
    caption: Optional[str]
    borders: bool
    cells: tuple[ImageCell, ...]


@dataclass(frozen=True)
class TextPlacement:
    """A text drawn at `origin` (left end of its baseline) in `font` ("regular" or "bold")."""
    text: str
    font: str
    origin: tuple[int, int]


@dataclass(frozen=True)
class CellBox:
    """A cell's box in pixels: left/top are its first edge pixel, right/bottom its last one."""
    cell: ImageCell
    left: int
    top: int
    right: int
    bottom: int
    fill: tuple[int, int, int]
    texts: tuple[TextPlacement, ...]


@dataclass(frozen=True)
class TableLayout:
    width: int
    height: int
    caption: Optional[TextPlacement]
    column_edges: tuple[int, ...]  # x of the line left of each column, then right of the last
    row_edges: tuple[int, ...]
    boxes: tuple[CellBox, ...]


def _font_path(name: str) -> str:
    # found without importing matplotlib (its import costs more than the whole drawing of a table)
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("matplotlib is not installed: its bundled DejaVu Sans font draws the table images")
    path = Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf" / name
    if not path.is_file():
        raise RuntimeError(f"font file {path} is missing from the matplotlib install")
    return str(path)


FONT_FILES = {"regular": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}


@lru_cache(maxsize=None)
def font(kind: str) -> ImageFont.FreeTypeFont:
    """The font of `kind` ("regular" or "bold") at the images' size."""
    return ImageFont.truetype(_font_path(FONT_FILES[kind]), FONT_SIZE)


@lru_cache(maxsize=None)
def _line_metrics() -> tuple[int, int]:
    ascent = max(font(k).getmetrics()[0] for k in FONT_FILES)
    descent = max(font(k).getmetrics()[1] for k in FONT_FILES)
    return ascent, descent


def line_height() -> int:
    ascent, descent = _line_metrics()
    return ascent + descent


@lru_cache(maxsize=1 << 16)
def ink_box(text: str, kind: str) -> tuple[int, int, int, int]:
    """The pixels `text` inks relative to its baseline origin: (x0, y0, x1, y1), x1/y1 exclusive."""
    if not text:
        return 0, 0, 0, 0
    return font(kind).getbbox(text, anchor="ls")


@lru_cache(maxsize=1 << 16)
def _text_mask(text: str, kind: str) -> Image.Image:
    """The text's ink as an 8-bit mask of its ink box: drawn once per text, pasted many times.

    A default build has ~680k texts but only ~59k distinct ones; FreeType rendering is most of the cost.
    """
    x0, y0, x1, y1 = ink_box(text, kind)
    mask = Image.new("L", (x1 - x0, y1 - y0), 0)
    ImageDraw.Draw(mask).text((-x0, -y0), text, font=font(kind), fill=255, anchor="ls")
    return mask


def _text_width(text: str, kind: str) -> int:
    x0, _, x1, _ = ink_box(text, kind)
    return x1 - min(x0, 0)


def _font_kind(cell: ImageCell) -> str:
    return "bold" if cell.role in HEADER_ROLES else "regular"


def _fill(cell: ImageCell) -> tuple[int, int, int]:
    if cell.role in HEADER_ROLES:
        if cell.is_aggregate:
            return AGGREGATE_HEADER_FILL
        return GROUP_LABEL_FILL if cell.role == "row_group_label" else HEADER_FILL
    if cell.is_aggregate or cell.role == "aggregate":
        return AGGREGATE_FILL
    return WHITE


def _split_parts(cell: ImageCell) -> Optional[tuple[str, str]]:
    """(row attributes, column attributes) of a split corner cell; None for any other cell."""
    if cell.role != "corner_split" or SPLIT_SEPARATOR not in cell.text:
        return None
    rows, cols = cell.text.split(SPLIT_SEPARATOR, 1)
    return rows, cols


def _needed_size(cell: ImageCell) -> tuple[int, int]:
    """The inner width and height (inside its edge lines) a cell needs for its text."""
    kind = _font_kind(cell)
    lh = line_height()
    split = _split_parts(cell)
    if split is not None:
        # two lines either side of a diagonal: twice the wider part keeps both clear of the line
        widest = max(_text_width(split[0], kind), _text_width(split[1], kind))
        return 2 * widest + 3 * PAD_X, 2 * lh + 3 * PAD_Y
    lines = cell.text.split("\n")
    return max(_text_width(line, kind) for line in lines) + 2 * PAD_X, len(lines) * lh + 2 * PAD_Y


def _checked_cells(table: ImageTable) -> tuple[int, int]:
    """Grid rows and columns; ValueError naming the table and cell for a bad cell or two overlapping."""
    if not table.cells:
        raise ValueError(f"table {table.table_id}: has no cells to draw")
    taken: dict[tuple[int, int], ImageCell] = {}
    for cell in table.cells:
        where = f"table {table.table_id}: cell at row {cell.grid_row}, column {cell.grid_col}"
        if cell.role not in ROLES:
            raise ValueError(f"{where}: unknown role {cell.role!r} (known: {', '.join(sorted(ROLES))})")
        if min(cell.grid_row, cell.grid_col, cell.rowspan, cell.colspan) < 1:
            raise ValueError(f"{where}: grid_row, grid_col, rowspan and colspan must be >= 1, got "
                             f"{cell.grid_row}, {cell.grid_col}, {cell.rowspan}, {cell.colspan}")
        if not isinstance(cell.text, str):
            raise ValueError(f"{where}: text must be a string, got {cell.text!r}")
        for r in range(cell.grid_row, cell.grid_row + cell.rowspan):
            for c in range(cell.grid_col, cell.grid_col + cell.colspan):
                other = taken.setdefault((r, c), cell)
                if other is not cell:
                    raise ValueError(f"{where} ({cell.role}, {cell.text!r}) overlaps the cell at row {other.grid_row}, "
                                     f"column {other.grid_col} ({other.role}, {other.text!r}) at row {r}, column {c}")
    n_rows = max(c.grid_row + c.rowspan - 1 for c in table.cells)
    n_cols = max(c.grid_col + c.colspan - 1 for c in table.cells)
    return n_rows, n_cols


def _track_sizes(cells: Sequence[ImageCell], n: int, start: str, span: str, need_index: int, minimum: int) -> list[int]:
    """Sizes of the n columns (or rows) so every cell gets what it needs; single-span cells first."""
    sizes = [minimum] * n
    for cell in sorted(cells, key=lambda c: (getattr(c, span), getattr(c, start), c.grid_row, c.grid_col)):
        first, count = getattr(cell, start) - 1, getattr(cell, span)
        # a box of k tracks also owns the k - 1 edge lines between them
        need = _needed_size(cell)[need_index] - (count - 1)
        deficit = need - sum(sizes[first:first + count])
        if deficit <= 0:
            continue
        if count == 1 or (span == "colspan" and cell.role in ROW_SIDE_ROLES):
            sizes[first + count - 1] += deficit
        else:
            share, rest = divmod(deficit, count)
            for i in range(count):
                sizes[first + i] += share + (1 if i < rest else 0)
    return sizes


def _edges(origin: int, sizes: Sequence[int]) -> tuple[int, ...]:
    # one edge line pixel, then the track, then the next edge line
    out = [origin]
    for s in sizes:
        out.append(out[-1] + s + 1)
    return tuple(out)


def _placements(cell: ImageCell, left: int, top: int, right: int, bottom: int) -> tuple[TextPlacement, ...]:
    kind = _font_kind(cell)
    ascent, descent = _line_metrics()
    lh = ascent + descent
    inner_left, inner_top, inner_right, inner_bottom = left + 1, top + 1, right, bottom  # right/bottom exclusive
    split = _split_parts(cell)
    if split is not None:
        rows, cols = split
        x0r = ink_box(rows, kind)[0]
        x0c, _, x1c, _ = ink_box(cols, kind)
        return (TextPlacement(cols, kind, (inner_right - PAD_X - x1c, inner_top + PAD_Y + ascent)),
                TextPlacement(rows, kind, (inner_left + PAD_X - min(x0r, 0), inner_bottom - PAD_Y - descent)))
    lines = cell.text.split("\n")
    if not any(lines):
        return ()
    block = len(lines) * lh
    if cell.role == "row_header" and cell.rowspan > 1:
        y = inner_top + PAD_Y  # as the HTML's valign="top": the group's first row holds its aggregate
    else:
        y = inner_top + (inner_bottom - inner_top - block) // 2
    out = []
    for i, line in enumerate(lines):
        if not line:
            continue
        x0, _, x1, _ = ink_box(line, kind)
        width = x1 - min(x0, 0)
        if cell.role in VALUE_ROLES:
            x = inner_right - PAD_X - width  # numbers right-aligned, digits line up
        elif cell.role in ("row_header", "row_group_label"):
            x = inner_left + PAD_X
        else:
            x = inner_left + (inner_right - inner_left - width) // 2
        out.append(TextPlacement(line, kind, (x - min(x0, 0), y + i * lh + ascent)))
    return tuple(out)


def layout_table(table: ImageTable) -> TableLayout:
    """Where every cell, its text and the caption go; ValueError naming the table for a bad grid."""
    n_rows, n_cols = _checked_cells(table)
    widths = _track_sizes(table.cells, n_cols, "grid_col", "colspan", 0, MIN_COLUMN_WIDTH)
    heights = _track_sizes(table.cells, n_rows, "grid_row", "rowspan", 1, line_height() + 2 * PAD_Y)
    table_width = sum(widths) + n_cols + 1
    caption_text = (table.caption or "").strip()
    caption_width = _text_width(caption_text, "regular") if caption_text else 0
    caption_height = line_height() + CAPTION_GAP if caption_text else 0
    width = max(table_width, caption_width) + 2 * MARGIN
    columns = _edges(MARGIN, widths)
    rows = _edges(MARGIN + caption_height, heights)
    caption = None
    if caption_text:
        x0 = ink_box(caption_text, "regular")[0]
        x = (width - caption_width) // 2 - min(x0, 0)
        caption = TextPlacement(caption_text, "regular", (x, MARGIN + _line_metrics()[0]))
    boxes = []
    for cell in sorted(table.cells, key=lambda c: (c.grid_row, c.grid_col)):
        left, right = columns[cell.grid_col - 1], columns[cell.grid_col - 1 + cell.colspan]
        top, bottom = rows[cell.grid_row - 1], rows[cell.grid_row - 1 + cell.rowspan]
        boxes.append(CellBox(cell, left, top, right, bottom, _fill(cell), _placements(cell, left, top, right, bottom)))
    return TableLayout(width, rows[-1] + 1 + MARGIN, caption, columns, rows, tuple(boxes))


def draw_layout(layout: TableLayout, borders: bool) -> Image.Image:
    image = Image.new("RGB", (layout.width, layout.height), WHITE)
    draw = ImageDraw.Draw(image)
    for box in layout.boxes:
        if box.fill != WHITE:
            draw.rectangle((box.left + 1, box.top + 1, box.right - 1, box.bottom - 1), fill=box.fill)
        if _split_parts(box.cell) is not None:
            draw.line((box.left + 1, box.top + 1, box.right - 1, box.bottom - 1), fill=LINE, width=1)
    if borders:
        for box in layout.boxes:
            draw.rectangle((box.left, box.top, box.right, box.bottom), outline=LINE, width=1)
    texts = [t for box in layout.boxes for t in box.texts] + ([layout.caption] if layout.caption else [])
    for t in texts:
        x0, y0, x1, y1 = ink_box(t.text, t.font)
        if x1 > x0 and y1 > y0:
            image.paste(INK, (t.origin[0] + x0, t.origin[1] + y0), _text_mask(t.text, t.font))
    return image


def png_bytes(image: Image.Image) -> bytes:
    """The RGB `image` as a PNG with no metadata chunks (no time, no dpi, no text): only the pixels decide the
    bytes. Written here rather than by Pillow, which tries five filters on every pixel row: that took over half
    of a table's drawing time, while the rows left unfiltered (flat fills, many rows alike) compress as small."""
    if image.mode != "RGB":
        raise ValueError(f"png_bytes writes RGB images, not {image.mode}")
    width, height = image.size
    pixels = image.tobytes()
    stride = 3 * width
    rows = b"".join(b"\x00" + pixels[i:i + stride] for i in range(0, len(pixels), stride))  # filter byte 0: none
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8 bits, RGB, deflate, no interlace
    return (PNG_SIGNATURE + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(rows, PNG_COMPRESS_LEVEL)) + _png_chunk(b"IEND", b""))


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def render_png(table: ImageTable) -> bytes:
    """The table as PNG bytes."""
    return png_bytes(draw_layout(layout_table(table), table.borders))


def image_table(table_id: str, caption: Optional[str], borders: bool, cells: Iterable[Any]) -> ImageTable:
    """An ImageTable from any cells that have the attributes of ImageCell (e.g. rows of a frame)."""
    return ImageTable(str(table_id), caption, bool(borders), tuple(
        ImageCell(int(c.grid_row), int(c.grid_col), int(c.rowspan), int(c.colspan), str(c.role),
                  bool(c.is_aggregate), c.text) for c in cells))


def render_grid_png(grid) -> bytes:
    """A `generator_py.grid.TableGrid` as PNG bytes: the `image` format of the format registry."""
    return render_png(image_table("table", grid.caption, grid.borders, grid.cells))


CELL_COLUMNS = ("table_id", "grid_row", "grid_col", "rowspan", "colspan", "role", "is_aggregate", "text")
TABLE_COLUMNS = ("table_id", "caption", "borders")


def tables_from_frames(cells, tables, cells_name: str = "cells", tables_name: str = "tables") -> list[ImageTable]:
    """ImageTables from a frame of anchored cells and a frame of table fields, sorted by table_id.

    Every table of `tables` needs cells and every cell's table a row; KeyError/ValueError name the
    frame (`cells_name`, `tables_name`), the column or the table otherwise.
    """
    for frame, name, needed in ((cells, cells_name, CELL_COLUMNS), (tables, tables_name, TABLE_COLUMNS)):
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise KeyError(f"{name} lacks column(s) {', '.join(missing)} (has: {', '.join(map(str, frame.columns))})")
    fields = {}
    for row in tables.itertuples(index=False):
        if row.table_id in fields:
            raise ValueError(f"{tables_name}: table {row.table_id} appears twice")
        fields[row.table_id] = row
    # whole columns converted at once, not itertuples: a default build has ~720k cells
    columns = [cells["table_id"].tolist()]
    columns += [cells[c].astype("int64").tolist() for c in ("grid_row", "grid_col", "rowspan", "colspan")]
    columns += [cells["role"].astype(str).tolist(), cells["is_aggregate"].astype(bool).tolist(), cells["text"].tolist()]
    by_table: dict[str, list] = {}
    for table_id, *fields_of_cell in zip(*columns):
        by_table.setdefault(table_id, []).append(ImageCell(*fields_of_cell))
    orphans = sorted(set(by_table) - set(fields))
    if orphans:
        raise ValueError(f"{cells_name}: cells of table(s) not in {tables_name}: {', '.join(orphans[:5])}")
    empty = sorted(set(fields) - set(by_table))
    if empty:
        raise ValueError(f"{tables_name}: table(s) without cells in {cells_name}: {', '.join(empty[:5])}")
    out = []
    for table_id in sorted(fields):
        row = fields[table_id]
        caption = None if row.caption is None or row.caption != row.caption else str(row.caption)  # NaN: none
        out.append(ImageTable(str(table_id), caption, bool(row.borders), tuple(by_table[table_id])))
    return out


@dataclass(frozen=True)
class WrittenImage:
    table_id: str
    path: str
    width: int
    height: int
    sha256: str


def image_file_name(table_id: str) -> str:
    if not TABLE_ID_PATTERN.match(table_id):
        raise ValueError(f"table {table_id!r}: not usable as a file name (letters, digits, '_', '.', '-' only)")
    return f"{table_id}.png"


def _write_chunk(folder: str, tables: Sequence[ImageTable]) -> list[WrittenImage]:
    out = []
    for table in tables:
        path = os.path.join(folder, image_file_name(table.table_id))
        data = render_png(table)
        with open(path, "wb") as f:
            f.write(data)
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")  # IHDR
        out.append(WrittenImage(table.table_id, path, width, height, hashlib.sha256(data).hexdigest()))
    return out


#: Below this many tables, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 200
CHUNK_SIZE = 64


def _write_job(job: tuple[str, Sequence[ImageTable]]) -> list[WrittenImage]:
    folder, tables = job
    return _write_chunk(folder, tables)


MANIFEST = "manifest.json"


@lru_cache(maxsize=1)
def renderer_digest() -> str:
    """sha256 of what draws an image besides its table: this module's code, Pillow's version and the fonts."""
    import PIL

    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(PIL.__version__.encode())
    for kind in sorted(FONT_FILES):
        h.update(Path(_font_path(FONT_FILES[kind])).read_bytes())
    return h.hexdigest()


def table_digest(table: ImageTable) -> str:
    """sha256 of a table's drawing inputs (with the renderer's): equal digests draw equal PNGs."""
    return hashlib.sha256(repr((renderer_digest(), table)).encode("utf-8")).hexdigest()


def _read_manifest(folder: Path) -> dict:
    try:
        data = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _kept(folder: Path, name: str, entry) -> Optional[WrittenImage]:
    """The image an earlier build wrote, when the file is still the one it wrote (size and sha256)."""
    if not isinstance(entry, dict):
        return None
    path = folder / name
    try:
        if path.stat().st_size != entry.get("bytes"):
            return None
        if hashlib.sha256(path.read_bytes()).hexdigest() != entry.get("sha256"):
            return None
    except OSError:
        return None
    return WrittenImage(entry["table_id"], str(path), int(entry["width"]), int(entry["height"]), entry["sha256"])


def write_table_images(tables: Sequence[ImageTable], folder, workers: Optional[int] = None) -> list[WrittenImage]:
    """Writes `<table_id>.png` for every table into `folder` (created; stale PNGs removed), in table_id order.

    Incremental: `folder/manifest.json` records each PNG's table digest (`table_digest`) and sha256; a
    table whose digest is unchanged and whose file is intact is not drawn again. `workers` processes
    render (default: the CPUs this process may use); each image depends only on its table, so the files
    are the same for any number of workers and whether drawn now or kept.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tables = sorted(tables, key=lambda t: t.table_id)
    names = [image_file_name(t.table_id) for t in tables]
    if len(set(names)) != len(names):
        raise ValueError("two tables share a table_id: " + next(n for n in names if names.count(n) > 1))
    keep = set(names)
    for stale in folder.glob("*.png"):
        if stale.name not in keep:
            stale.unlink()
    before = _read_manifest(folder)
    digests = [table_digest(t) for t in tables]
    kept: dict[str, WrittenImage] = {}
    for table, name, digest in zip(tables, names, digests):
        entry = before.get(name)
        if isinstance(entry, dict) and entry.get("digest") == digest and entry.get("table_id") == table.table_id:
            image = _kept(folder, name, entry)
            if image is not None:
                kept[table.table_id] = image
    todo = [t for t in tables if t.table_id not in kept]
    drawn = {w.table_id: w for w in _draw(todo, folder, workers)}
    written = [kept.get(t.table_id) or drawn[t.table_id] for t in tables]
    manifest = {name: {"table_id": w.table_id, "digest": d, "sha256": w.sha256, "bytes": Path(w.path).stat().st_size,
                       "width": w.width, "height": w.height}
                for name, d, w in zip(names, digests, written)}
    tmp = folder / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, sort_keys=True, indent=0) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MANIFEST)
    return written


# The drawing workers yield the cores: in a build only the evaluation's prompts wait for the images, while the
# question, answer and choice-item models they would share the cores with are on the build's longest path
WORKER_NICENESS = 10


def _draw(tables: Sequence[ImageTable], folder: Path, workers: Optional[int]) -> list[WrittenImage]:
    workers = max(1, workers or len(os.sched_getaffinity(0)))
    if workers == 1 or len(tables) < PARALLEL_THRESHOLD:
        return _write_chunk(str(folder), tables)
    # fresh interpreters, not forks of the dbt process: the drawing lasts minutes at its low priority, and a
    # fork would keep all the memory the build held at its start (other models' frames) for that long
    jobs = [(str(folder), tables[i:i + CHUNK_SIZE]) for i in range(0, len(tables), CHUNK_SIZE)]
    parts = map_in_interpreters(f"{__name__}:_write_job", jobs, workers, niceness=WORKER_NICENESS)
    return [w for part in parts for w in part]
