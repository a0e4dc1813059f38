"""End-to-end: a build writes one PNG per table (synthetic in the CI-sized build, real in the release build),
as benchmark_table_images says."""
from __future__ import annotations

import hashlib
import io
from pathlib import Path

import duckdb
from PIL import Image

from generator_py.render.image import ink_box, layout_table, render_png, tables_from_frames


GRID_TABLES = "select distinct table_id, caption, borders from intermediate.int_table_grid"


def _images(ci_db):
    return ci_db.execute("select table_id, path, width, height, sha256 from main.benchmark_table_images "
                         "order by table_id").fetchall()


def test_every_synthetic_table_has_one_image_row(ci_db):
    synthetic = [r[0] for r in ci_db.execute(
        "select table_id from main.benchmark_tables where source = 'synthetic' and variant = 'original' "
        "order by table_id").fetchall()]
    assert synthetic and [r[0] for r in _images(ci_db)] == synthetic


def test_every_file_exists_with_its_hash_and_decodes_to_its_size(ci_build, ci_db):
    rows = _images(ci_db)
    # paths relative to the exports folder, so a moved folder still works
    folders = {Path(path).parent for _, path, *_ in rows}
    assert folders == {Path("images")}
    exports = ci_build / "exports"
    # the PNGs and the manifest that keeps a rebuild from drawing them again
    assert sorted(p.name for p in (exports / "images").iterdir()) == sorted([f"{t}.png" for t, *_ in rows]
                                                                            + ["manifest.json"])
    for table_id, path, width, height, sha256 in rows:
        data = (exports / path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha256, table_id
        image = Image.open(io.BytesIO(data))
        image.verify()
        assert (image.format, image.size) == ("PNG", (width, height)), table_id


def test_files_redrawn_from_the_built_grid_give_the_same_bytes(ci_build, ci_db):
    some = [r[0] for r in ci_db.execute("""select table_id from main.benchmark_table_images
                                           order by sha256 limit 5""").fetchall()]
    marks = ", ".join("?" for _ in some)
    cells = ci_db.execute(f"select * from intermediate.int_table_grid where table_id in ({marks})", some).df()
    tables = ci_db.execute(f"select * from ({GRID_TABLES}) where table_id in ({marks})", some).df()
    stored = {t: (ci_build / "exports" / p).read_bytes() for t, p, *_ in _images(ci_db) if t in some}
    for table in tables_from_frames(cells, tables):
        assert render_png(table) == stored[table.table_id], table.table_id


def test_no_text_of_any_built_table_leaves_its_cell(ci_db):
    cells = ci_db.execute("select * from intermediate.int_table_grid").df()
    tables = ci_db.execute(GRID_TABLES).df()
    outside = []
    for table in tables_from_frames(cells, tables):
        for box in layout_table(table).boxes:
            for t in box.texts:
                x0, y0, x1, y1 = ink_box(t.text, t.font)  # the font's box, each distinct text measured once
                left, top, right, bottom = t.origin[0] + x0, t.origin[1] + y0, t.origin[0] + x1, t.origin[1] + y1
                if not (box.left < left and right <= box.right and box.top < top and bottom <= box.bottom):
                    outside.append((table.table_id, t.text))
    assert not outside, outside[:10]


def test_every_real_table_of_the_release_build_has_its_image(release_build):
    con = duckdb.connect(str(release_build / "hctqa.duckdb"), read_only=True)
    try:
        real = [r[0] for r in con.execute(
            "select table_id from main.benchmark_tables where source = 'real' order by table_id").fetchall()]
        rows = con.execute("""select i.table_id, i.path, i.sha256 from main.benchmark_table_images i
                              join main.benchmark_tables t using (table_id) where t.source = 'real'
                              order by i.table_id""").fetchall()
    finally:
        con.close()
    assert real and [r[0] for r in rows] == real
    for table_id, path, sha256 in rows:
        data = (release_build / "exports" / path).read_bytes()
        assert data.startswith(b"\x89PNG") and hashlib.sha256(data).hexdigest() == sha256, table_id
