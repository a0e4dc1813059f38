"""The table image renderer on small hand-built grids: geometry, marks, legibility, determinism."""
from __future__ import annotations

import hashlib
import io
import json
import os
import zlib
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from generator_py.core.child_process import map_in_interpreters
from generator_py.render.image import (
    AGGREGATE_FILL, AGGREGATE_HEADER_FILL, GROUP_LABEL_FILL, HEADER_FILL, LINE, WHITE, ImageCell, ImageTable,
    font, image_table, ink_box, layout_table, render_png, tables_from_frames, write_table_images,
)


def cell(r, c, role, text="", rowspan=1, colspan=1, agg=False):
    return ImageCell(r, c, rowspan, colspan, role, agg, text)


def nested_table(borders=True, caption="Sales in euros"):
    """Two header rows (Year over 2020 | 2021 | Total) and a spanning row header over two rows."""
    return ImageTable("t1", caption, borders, (
        cell(1, 1, "corner", rowspan=2, colspan=2),
        cell(1, 3, "column_header", "Year", colspan=3),
        cell(2, 3, "column_header", "2020"),
        cell(2, 4, "column_header", "2021"),
        cell(2, 5, "column_header", "Total", agg=True),
        cell(3, 1, "row_header", "North", rowspan=2),
        cell(3, 2, "row_header", "Oslo"),
        cell(4, 2, "row_header", "Bergen"),
        cell(3, 3, "data", "12"), cell(3, 4, "data", "7"), cell(3, 5, "aggregate", "19", agg=True),
        cell(4, 3, "data", "3"), cell(4, 4, "data", "1250.75"), cell(4, 5, "aggregate", "1253.75", agg=True),
    ))


def pixels(table):
    return Image.open(io.BytesIO(render_png(table))).convert("RGB")


def box_of(layout, text):
    return next(b for b in layout.boxes if b.cell.text == text)


def test_png_has_the_layout_size_and_only_image_chunks():
    table = nested_table()
    data = render_png(table)
    layout = layout_table(table)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (layout.width, layout.height)
    chunks, at = [], 8
    while at < len(data):
        length = int.from_bytes(data[at:at + 4], "big")
        chunks.append(data[at + 4:at + 8].decode())
        at += 12 + length
    assert set(chunks) == {"IHDR", "IDAT", "IEND"}  # no tIME, tEXt, pHYs: nothing that varies by run


def test_same_table_same_bytes_and_a_changed_cell_changes_them():
    assert render_png(nested_table()) == render_png(nested_table())
    changed = nested_table()
    cells = tuple(c._replace(text="13") if c.text == "12" else c for c in changed.cells)
    assert render_png(ImageTable("t1", changed.caption, True, cells)) != render_png(nested_table())


def test_merged_cell_spans_its_columns_without_an_inner_line():
    table = nested_table()
    layout = layout_table(table)
    year = box_of(layout, "Year")
    assert (year.left, year.right) == (box_of(layout, "2020").left, box_of(layout, "Total").right)
    north = box_of(layout, "North")
    assert (north.top, north.bottom) == (box_of(layout, "Oslo").top, box_of(layout, "Bergen").bottom)
    image = pixels(table)
    inner_edge = box_of(layout, "2020").right  # the line between 2020 and 2021 below "Year"
    mid_year = (year.top + year.bottom) // 2
    assert image.getpixel((inner_edge, box_of(layout, "2020").top + 2)) == LINE
    # inside "Year" the 2020|2021 edge is not drawn (the text is centred elsewhere: sample off the text)
    year_column = [image.getpixel((inner_edge, y)) for y in range(year.top + 1, year.bottom)]
    assert LINE not in year_column
    north_row_edge = box_of(layout, "Oslo").bottom
    assert image.getpixel(((north.left + north.right) // 2, north_row_edge)) != LINE
    assert image.getpixel(((year.left + year.right) // 2, year.top)) == LINE and mid_year > year.top


def test_headers_shaded_bold_and_aggregates_marked():
    table = nested_table()
    layout = layout_table(table)
    image = pixels(table)
    fills = {b.cell.text: image.getpixel((b.left + 2, b.bottom - 2)) for b in layout.boxes if b.cell.text}
    assert fills["2020"] == HEADER_FILL and fills["Oslo"] == HEADER_FILL
    assert fills["Total"] == AGGREGATE_HEADER_FILL
    assert fills["19"] == AGGREGATE_FILL and fills["1253.75"] == AGGREGATE_FILL
    assert fills["12"] == WHITE and fills["1250.75"] == WHITE
    assert {t.font for b in layout.boxes for t in b.texts if b.cell.role.endswith("header")} == {"bold"}
    assert {t.font for b in layout.boxes for t in b.texts if b.cell.role in ("data", "aggregate")} == {"regular"}


def test_group_label_has_its_own_shade():
    table = ImageTable("g", None, False, (
        cell(1, 1, "column_header", "Item"), cell(1, 2, "column_header", "Value"),
        cell(2, 1, "row_group_label", "Fruit"), cell(2, 2, "empty"),
        cell(3, 1, "row_header", "Apples"), cell(3, 2, "data", "4"),
    ))
    layout, image = layout_table(table), pixels(table)
    fruit = box_of(layout, "Fruit")
    assert image.getpixel((fruit.right - 2, fruit.bottom - 2)) == GROUP_LABEL_FILL != HEADER_FILL


def test_borders_drawn_only_when_the_table_has_them():
    with_lines, without = pixels(nested_table(True)), pixels(nested_table(False))
    layout = layout_table(nested_table())
    edge_x = box_of(layout, "12").right
    ys = range(box_of(layout, "12").top + 1, box_of(layout, "3").bottom)
    assert all(with_lines.getpixel((edge_x, y)) == LINE for y in ys)
    assert not any(without.getpixel((edge_x, y)) == LINE for y in ys)
    top, bottom = layout.row_edges[0], layout.row_edges[-1]
    for x in layout.column_edges:  # no edge is a line (anti-aliased text may hold a pixel of that grey)
        run = [without.getpixel((x, y)) == LINE for y in range(top, bottom + 1)]
        assert sum(run) < len(run) / 4, x


def test_caption_drawn_centred_above_the_table():
    table = nested_table()
    layout = layout_table(table)
    image = pixels(table)
    cap = layout.caption
    assert cap is not None and cap.text == "Sales in euros"
    x0, y0, x1, y1 = ink_box(cap.text, cap.font)
    top_of_table = layout.row_edges[0]
    assert cap.origin[1] + y1 <= top_of_table
    band = image.crop((0, 0, layout.width, top_of_table))
    assert band.convert("L").getextrema()[0] < 100  # dark ink in the caption band
    assert abs((cap.origin[0] + x0 + cap.origin[0] + x1) / 2 - layout.width / 2) <= 1
    no_caption = layout_table(nested_table(caption=None))
    assert no_caption.caption is None and no_caption.height < layout.height


def _text_boxes(layout):
    for box in layout.boxes:
        for t in box.texts:
            x0, y0, x1, y1 = font(t.font).getbbox(t.text, anchor="ls")  # measured anew with the font
            yield box, (t.origin[0] + x0, t.origin[1] + y0, t.origin[0] + x1, t.origin[1] + y1)


def test_every_text_fits_inside_its_cell():
    long_header = "A rather long column header label"
    table = ImageTable("w", "Caption much wider than the table itself, so it sets the width", True, (
        cell(1, 1, "corner_split", "Region / City \\ Year", rowspan=1, colspan=2),
        cell(1, 3, "column_header", long_header),
        cell(1, 4, "column_header", "2021"),
        cell(2, 1, "row_header", "North of the country", rowspan=2),
        cell(2, 2, "row_header", "Oslo"),
        cell(3, 2, "row_header", "Tromsø"),
        cell(2, 3, "data", "123456.78"), cell(2, 4, "data", "-0.5"),
        cell(3, 3, "data", "9"), cell(3, 4, "aggregate", "99999", agg=True),
    ))
    layout = layout_table(table)
    placed = list(_text_boxes(layout))
    assert len(placed) == 11  # ten cells with text, the split corner two
    for box, (l, t, r, b) in placed:
        assert box.left < l and r <= box.right and box.top < t and b <= box.bottom, (box.cell, (l, t, r, b))
    cap = layout.caption
    x0, _, x1, _ = ink_box(cap.text, cap.font)
    assert 0 <= cap.origin[0] + x0 and cap.origin[0] + x1 <= layout.width


def test_split_corner_texts_sit_either_side_of_its_diagonal():
    table = ImageTable("s", None, True, (
        cell(1, 1, "corner_split", "Country / Region \\ Year", rowspan=2),
        cell(1, 2, "column_header", "Y", colspan=2), cell(2, 2, "column_header", "1"), cell(2, 3, "column_header", "2"),
        cell(3, 1, "row_header", "A"), cell(3, 2, "data", "1"), cell(3, 3, "data", "2"),
    ))
    layout = layout_table(table)
    corner = layout.boxes[0]
    assert corner.cell.role == "corner_split"
    (cols, rows) = corner.texts
    assert (cols.text, rows.text) == ("Year", "Country / Region")

    def below_diagonal(x, y):  # diagonal from the top-left to the bottom-right corner
        return (y - corner.top) * (corner.right - corner.left) > (x - corner.left) * (corner.bottom - corner.top)
    (_, (l, t, r, b)), (_, (l2, t2, r2, b2)) = [p for p in _text_boxes(layout) if p[0] is corner]
    assert not any(below_diagonal(x, y) for x in (l, r) for y in (t, b))  # column names above it
    assert all(below_diagonal(x, y) for x in (l2, r2) for y in (t2, b2))  # row names below it
    image = pixels(table)
    assert image.getpixel(((corner.left + corner.right) // 2, (corner.top + corner.bottom) // 2)) != HEADER_FILL


def test_indentation_column_stays_narrow_under_a_spanning_row_header():
    table = ImageTable("i", None, False, (
        cell(1, 1, "corner", colspan=2), cell(1, 3, "column_header", "Value"),
        cell(2, 1, "row_header", "A very long top level label", colspan=2), cell(2, 3, "data", "1"),
        cell(3, 1, "indent"), cell(3, 2, "row_header", "child"), cell(3, 3, "data", "2"),
    ))
    layout = layout_table(table)
    indent = next(b for b in layout.boxes if b.cell.role == "indent")
    assert indent.right - indent.left <= 20  # the long label's width went to the second column


@pytest.mark.parametrize("bad, message", [
    (cell(1, 1, "header"), "unknown role 'header'"),
    (cell(1, 0, "data", "1"), "must be >= 1"),
    (cell(1, 1, "data", None), "text must be a string"),
    (cell(2, 1, "data", "5"), "overlaps the cell at row 1, column 1"),
])
def test_bad_cells_named_in_the_error(bad, message):
    table = ImageTable("bad_table", None, True, (cell(1, 1, "column_header", "X", rowspan=2), bad))
    with pytest.raises(ValueError, match="table bad_table: cell at row") as err:
        layout_table(table)
    assert message in str(err.value)


def test_frames_to_tables_and_missing_pieces_named():
    cells = pd.DataFrame([dict(table_id="b", grid_row=1, grid_col=1, rowspan=1, colspan=1, role="data",
                               is_aggregate=False, text="1"),
                          dict(table_id="a", grid_row=1, grid_col=1, rowspan=1, colspan=1, role="column_header",
                               is_aggregate=False, text="H")])
    tables = pd.DataFrame({"table_id": ["b", "a"], "caption": ["B", None], "borders": [True, False]})
    out = tables_from_frames(cells, tables)
    assert [(t.table_id, t.caption, t.borders, len(t.cells)) for t in out] == [("a", None, False, 1), ("b", "B", True, 1)]
    with pytest.raises(KeyError, match="int_x lacks column.*role"):
        tables_from_frames(cells.drop(columns="role"), tables, "int_x")
    with pytest.raises(ValueError, match="table\\(s\\) without cells in cells: c"):
        tables_from_frames(cells, pd.concat([tables, pd.DataFrame({"table_id": ["c"], "caption": ["C"],
                                                                     "borders": [True]})]))
    with pytest.raises(ValueError, match="cells of table\\(s\\) not in tables: b"):
        tables_from_frames(cells, tables[tables.table_id == "a"])
    assert image_table("z", "Z", 1, cells.itertuples()).cells[0].text == "1"


def _many_tables(n):
    base = nested_table()
    return [ImageTable(f"t{i:04d}", f"Table {i}", i % 2 == 0,
                       tuple(c._replace(text=str(i)) if c.role == "data" else c for c in base.cells)) for i in range(n)]


def test_written_files_match_their_rows_and_workers_do_not_change_bytes(tmp_path):
    tables = _many_tables(210)  # above the parallel threshold
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "stale.png").write_bytes(b"old")
    serial = write_table_images(tables, tmp_path / "one", workers=1)
    parallel = write_table_images(list(reversed(tables)), tmp_path / "two", workers=2)
    assert [w.table_id for w in serial] == sorted(t.table_id for t in tables) == [w.table_id for w in parallel]
    assert not (tmp_path / "one" / "stale.png").exists()
    for a, b in zip(serial, parallel):
        data = open(a.path, "rb").read()
        assert data == open(b.path, "rb").read()
        assert hashlib.sha256(data).hexdigest() == a.sha256 == b.sha256
        assert Image.open(io.BytesIO(data)).size == (a.width, a.height)
    assert zlib.crc32(open(serial[0].path, "rb").read()) != zlib.crc32(open(serial[1].path, "rb").read())


def test_a_rebuild_draws_only_the_tables_that_changed(tmp_path, monkeypatch):
    import generator_py.render.image as image

    tables = _many_tables(5)
    first = write_table_images(tables, tmp_path, workers=1)
    for w in first:  # an old modification time, so that a redraw would show
        os.utime(w.path, ns=(1_000_000_000, 1_000_000_000))
    drawn = []
    real = image.render_png
    monkeypatch.setattr(image, "render_png", lambda t: drawn.append(t.table_id) or real(t))
    # nothing changed: nothing drawn, the same rows
    assert write_table_images(tables, tmp_path, workers=1) == first and drawn == []
    # one table's cell changed, one table gone, one file damaged
    changed = list(tables)
    changed[1] = ImageTable(tables[1].table_id, tables[1].caption, tables[1].borders,
                            tuple(c._replace(text="999") if c.role == "data" else c for c in tables[1].cells))
    del changed[4]
    Path(first[2].path).write_bytes(b"not a png")
    again = write_table_images(changed, tmp_path, workers=1)
    assert drawn == [tables[1].table_id, tables[2].table_id]
    assert again[2] == first[2] and again[1].sha256 != first[1].sha256
    assert {w.table_id for w in again if os.stat(w.path).st_mtime_ns == 1_000_000_000} == {"t0000", "t0003"}
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["t0000.png", "t0001.png", "t0002.png", "t0003.png"]
    assert json.loads((tmp_path / "manifest.json").read_text())["t0001.png"]["sha256"] == again[1].sha256


def test_drawing_workers_run_at_a_lower_priority_than_the_build(tmp_path, monkeypatch):
    import generator_py.render.image as image

    asked = []

    def spy(function, jobs, workers, niceness=0):  # the real pool, its arguments noted
        asked.append((len(jobs), workers, niceness))
        return map_in_interpreters(function, jobs, workers, niceness)

    monkeypatch.setattr(image, "map_in_interpreters", spy)
    tables = _many_tables(image.PARALLEL_THRESHOLD + 1)
    written = image._draw(tables, tmp_path, workers=2)
    assert asked == [(-(-len(tables) // image.CHUNK_SIZE), 2, image.WORKER_NICENESS)]
    assert [w.table_id for w in written] == [t.table_id for t in tables]
    assert all(Path(w.path).is_file() for w in written)


def test_table_id_that_is_no_file_name_refused(tmp_path):
    with pytest.raises(ValueError, match="'../x': not usable as a file name"):
        write_table_images([ImageTable("../x", None, True, (cell(1, 1, "data", "1"),))], tmp_path)


def test_the_image_format_of_the_registry_draws_a_grid_as_render_png_does():
    from generator_py.grid.cells import Cell, TableGrid
    from generator_py.render.registry import get_format, render

    grid = TableGrid((Cell(1, 1, 1, 2, "column_header", "Year"), Cell(2, 1, 1, 1, "data", "1"),
                      Cell(2, 2, 1, 1, "aggregate", "3", True)), header_rows=1, header_columns=0, caption="Total",
                     borders=True)
    png = render(grid, "image")
    assert not get_format("image").is_text and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert png == render_png(image_table("any", "Total", True, grid.cells))
