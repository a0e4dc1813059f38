"""The cell grid and its renderers: exact bytes per format, HTML round trips, release CSV grids."""
import csv
import io
import json

import pandas as pd
import pyarrow as pa
import pytest

from generator_py.grid.cells import Cell, TableGrid, check_cells
from generator_py.grid.html_parse import grid_from_html, read_html_table
from generator_py.dbt_glue.relations import column_batches
from generator_py.grid.relation import GRID_COLUMNS, grid_rows, grids_from_batches, grids_from_columns, grids_from_frame
from generator_py.grid.release_csv import MERGE_MARKER, grid_from_release_csv, layout_release_grid
from generator_py.release.table_csv import parse_release_csv
from generator_py.render.registry import format_names, get_format, register_format, render
from generator_py.render.tables import render_tables, rendered_part


def _accidents() -> TableGrid:
    """A synthetic-shaped grid: a two-level column header, an aggregate column and row."""
    cells = (
        Cell(1, 1, 2, 1, "corner", ""),
        Cell(1, 2, 1, 2, "column_header", "2020"),
        Cell(1, 4, 2, 1, "column_header", "Total", True),
        Cell(2, 2, 1, 1, "column_header", "Q1"),
        Cell(2, 3, 1, 1, "column_header", "Q2"),
        Cell(3, 1, 1, 1, "row_header", "Road|Rail"),
        Cell(3, 2, 1, 1, "data", "1"),
        Cell(3, 3, 1, 1, "data", "2"),
        Cell(3, 4, 1, 1, "aggregate", "3", True),
        Cell(4, 1, 1, 1, "row_header", 'Total "all" & <more>', True),
        Cell(4, 2, 1, 1, "aggregate", "1", True),
        Cell(4, 3, 1, 1, "aggregate", "2", True),
        Cell(4, 4, 1, 1, "aggregate", "3", True),
    )
    return TableGrid(cells, header_rows=2, header_columns=1, caption="Number of accidents", borders=True)


def _outline() -> TableGrid:
    """An indented row outline: a group label row, an indentation cell, a row header spanning two rows."""
    cells = (
        Cell(1, 1, 1, 2, "corner_split", "Kind \\ Year"),
        Cell(1, 3, 1, 1, "column_header", "2021"),
        Cell(2, 1, 1, 2, "row_group_label", "Road"),
        Cell(2, 3, 1, 1, "data", ""),
        Cell(3, 1, 1, 1, "indent", ""),
        Cell(3, 2, 1, 1, "row_header", "Car"),
        Cell(3, 3, 1, 1, "data", "4"),
        Cell(4, 1, 2, 1, "row_header", "Water"),
        Cell(4, 2, 1, 1, "row_header", "Boat"),
        Cell(4, 3, 1, 1, "data", "5"),
        Cell(5, 2, 1, 1, "row_header", "Ship"),
        Cell(5, 3, 1, 1, "data", "6"),
    )
    return TableGrid(cells, header_rows=1, header_columns=2, caption="Outline")


def test_grid_shape_and_flattened_texts():
    grid = _accidents()
    assert (grid.n_rows, grid.n_columns) == (4, 4)
    assert grid.texts()[0] == ["", "2020", "", "Total"]
    assert grid.texts()[1] == ["", "Q1", "Q2", ""]
    assert [len(r) for r in grid.rows()] == [3, 2, 4, 4]
    # cells are kept row-major whatever order they come in
    shuffled = TableGrid(tuple(reversed(grid.cells)), 2, 1, "Number of accidents", True)
    assert shuffled == grid


def test_check_cells_names_the_problem():
    with pytest.raises(ValueError, match=r"t1: cells at \(1, 1\) and \(1, 2\) both cover \(1, 2\)"):
        check_cells([Cell(1, 1, 1, 2, "data", "a"), Cell(1, 2, 1, 1, "data", "b")], "t1")
    with pytest.raises(ValueError, match="t2: cell .* unknown role 'header'"):
        check_cells([Cell(1, 1, 1, 1, "header", "a")], "t2")
    with pytest.raises(ValueError, match="t3: cell .* span below 1"):
        check_cells([Cell(1, 1, 0, 1, "data", "a")], "t3")
    check_cells(_accidents().cells, "ok")


def test_html_bytes():
    assert render(_accidents(), "html") == (
        '<table border="1" cellpadding="4"><caption>Number of accidents</caption><thead>'
        '<tr><th rowspan="2"></th><th colspan="2">2020</th><th rowspan="2" class="agg">Total</th></tr>'
        "<tr><th>Q1</th><th>Q2</th></tr></thead><tbody>"
        '<tr><th>Road|Rail</th><td>1</td><td>2</td><td class="agg">3</td></tr>'
        '<tr><th class="agg">Total &quot;all&quot; &amp; &lt;more&gt;</th><td class="agg">1</td>'
        '<td class="agg">2</td><td class="agg">3</td></tr></tbody></table>')
    assert render(_outline(), "html") == (
        '<table cellpadding="4"><caption>Outline</caption><thead>'
        '<tr><th colspan="2" class="split">Kind \\ Year</th><th>2021</th></tr></thead><tbody>'
        '<tr><th colspan="2" class="group">Road</th><td></td></tr>'
        '<tr><th class="indent"></th><th>Car</th><td>4</td></tr>'
        '<tr><th rowspan="2" valign="top">Water</th><th>Boat</th><td>5</td></tr>'
        "<tr><th>Ship</th><td>6</td></tr></tbody></table>")
    no_caption = TableGrid((Cell(1, 1, 1, 1, "data", "x"),), header_rows=0, header_columns=0)
    assert render(no_caption, "html") == '<table cellpadding="4"><tbody><tr><td>x</td></tr></tbody></table>'


def test_csv_and_markdown_bytes():
    grid = _accidents()
    assert render(grid, "csv") == (
        '"","2020","","Total"\n"","Q1","Q2",""\n"Road|Rail","1","2","3"\n'
        '"Total ""all"" & <more>","1","2","3"\n')
    assert render(grid, "markdown") == (
        "|  | 2020 |  | Total |\n| --- | --- | --- | --- |\n|  | Q1 | Q2 |  |\n| Road\\|Rail | 1 | 2 | 3 |\n"
        '| Total "all" & <more> | 1 | 2 | 3 |\n')
    # the CSV reads back as the flattened grid
    assert list(csv.reader(io.StringIO(render(grid, "csv")))) == grid.texts()


def test_html_round_trip_of_synthetic_shapes():
    for grid in (_accidents(), _outline()):
        assert grid_from_html(render(grid, "html")) == grid


def test_html_reader_on_release_synthetic_html(synthetic_sample_dir):
    grid = grid_from_html((synthetic_sample_dir / "Number_of_accidents_set150_5_HCT.html").read_text())
    assert grid.header_rows == 3 and grid.header_columns == 2
    assert grid.cells[0] == Cell(1, 1, 3, 2, "corner", "")
    assert grid.texts()[3][:4] == ["Traffic", "Slight", "22.00", "65.00"]
    for path in sorted(synthetic_sample_dir.glob("*.html")):  # a <style> head: read by html.parser
        text = path.read_text(encoding="utf-8")
        assert read_html_table(text).rows == _handler_state(text, plain=False)[0]
    # our renderer writes it back as a table the reader reads as the same grid
    assert grid_from_html(render(grid, "html")) == grid


def _handler_state(html_text: str, plain: bool):
    from generator_py.grid import html_parse

    parser = html_parse._TableParser()
    if plain:
        assert html_parse._feed_plain(parser, html_text), html_text
    else:
        parser.feed(html_text)
        parser.close()
    parser.close_row()
    return parser.rows, parser.caption_parts, parser.table_attrs


PLAIN_MARKUP = [
    '<TABLE Border=1><caption>A &amp; B</caption><TR><TD CLASS="x&amp;y" rowspan=2>x &lt; y &#x41;</TD><td/>z</tr></table>',
    "<table><tr><th colspan = \"2\" >A<br/>B</th><td title='q\"x' disabled>1</td></tr></TABLE>after",
    "<p>before</p><table><tr><td><table><tr><td>inner</td></tr></table>outer</td></tr></table>",
]
NOT_PLAIN = ["<table><tr><td>a < b</td></tr></table>", "<table><!-- note --><tr><td>1</td></tr></table>",
             "<table><tr><td><script>x = '<td>'</script>1</td></tr></table>", "<!DOCTYPE html><table><tr><td>1</td></tr></table>"]


def test_plain_markup_reads_as_html_parser_reads_it():
    """Our renderer's HTML and a few hand-written tables give the handler the same calls through the two
    patterns as through html.parser; markup that is not plain goes through html.parser."""
    from generator_py.grid import html_parse

    for text in [render(g, "html") for g in (_accidents(), _outline())] + PLAIN_MARKUP:
        assert _handler_state(text, plain=True) == _handler_state(text, plain=False), text
    for text in NOT_PLAIN:
        assert not html_parse._feed_plain(html_parse._TableParser(), text), text
        assert html_parse.read_html_table(text).rows == _handler_state(text, plain=False)[0]


def test_grid_from_html_errors():
    with pytest.raises(ValueError, match="no HTML table"):
        grid_from_html("<p>no table</p>")


def test_parse_release_csv_drops_indexes():
    text = ',0,1,2\n0,Name,"1,000",\n1,"a ""b""",2,3\n'
    assert parse_release_csv(text) == [["Name", "1,000", ""], ['a "b"', "2", "3"]]


def _release_csv(grid: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([""] + [str(i) for i in range(len(grid[0]))])
    for i, row in enumerate(grid):
        writer.writerow([str(i)] + row)
    return out.getvalue()


def test_release_merge_markers_become_spans():
    texts = [
        ["Dataset", "Model", "Faithful", "__", "Use"],
        ["__", "__", "Y", "N", "__"],
        ["NQ", "GPT", "90", "10", "83"],
        ["__", "Ours", "80", "7", "80"],
        ["Women", "__", "__", "__", "__"],
        ["All", "Ours", "1", "2", "3"],
    ]
    layout = layout_release_grid(texts)
    assert layout.header_rows == 2 and layout.header_columns == 2
    assert layout.spans[(0, 0)] == (2, 1) and layout.spans[(0, 2)] == (1, 2) and layout.spans[(4, 0)] == (1, 5)
    grid = grid_from_release_csv(_release_csv(texts))
    assert (grid.header_rows, grid.header_columns) == (2, 2)
    by_anchor = {(c.grid_row, c.grid_col): c for c in grid.cells}
    assert by_anchor[(1, 1)] == Cell(1, 1, 2, 1, "corner", "Dataset")
    assert by_anchor[(1, 3)] == Cell(1, 3, 1, 2, "column_header", "Faithful")
    assert by_anchor[(3, 1)] == Cell(3, 1, 2, 1, "row_header", "NQ")
    assert by_anchor[(5, 1)] == Cell(5, 1, 1, 5, "row_header", "Women")
    assert by_anchor[(4, 4)] == Cell(4, 4, 1, 1, "data", "7")
    assert grid_from_html(render(grid, "html")) == grid


def _release_tables(real_sample_dir):
    return json.loads((real_sample_dir / "realWorld_HCT_qaps.sample.json").read_text())


def test_real_tables_round_trip_through_html(real_sample_dir):
    """Every real table of the release sample: CSV -> grid -> HTML -> grid gives the same grid."""
    for table in _release_tables(real_sample_dir):
        grid = grid_from_release_csv(table["table_info"]["table_formats"]["csv"])
        assert grid.cells and grid.header_rows >= 1, table["table_id"]
        assert grid_from_html(render(grid, "html")) == grid, table["table_id"]


def test_real_csv_matches_the_release_csv(real_sample_dir):
    """Our CSV shows, at every position, the release's text (whitespace collapsed), a `__` marker as empty."""
    for table in _release_tables(real_sample_dir):
        release_texts = parse_release_csv(table["table_info"]["table_formats"]["csv"])
        grid = grid_from_release_csv(table["table_info"]["table_formats"]["csv"])
        ours = list(csv.reader(io.StringIO(render(grid, "csv"))))
        expected = [["" if t.strip() == MERGE_MARKER else " ".join(t.split()) for t in row] for row in release_texts]
        assert ours == expected, table["table_id"]
        assert len(render(grid, "markdown").splitlines()) == len(release_texts) + 1


def test_relation_rows_rebuild_the_grid():
    frame = pd.DataFrame(grid_rows("t-b", "synthetic", _accidents()) + grid_rows("t-a", "real", _outline()),
                         columns=list(GRID_COLUMNS))
    assert [(table_id, grid) for table_id, grid in grids_from_frame(frame.sample(frac=1, random_state=3))] == [
        ("t-a", _outline()), ("t-b", _accidents())]
    out = render_tables(grids_from_frame(frame))
    assert list(out.columns) == ["table_id", "n_rows", "n_columns", *format_names(text_only=True)]
    assert out.set_index("table_id").loc["t-b", "html"] == render(_accidents(), "html")
    # the dbt model's path: plain lists in grid order give the same grids
    ordered = frame.sort_values(["table_id", "grid_row", "grid_col"])
    columns = {c: ordered[c].tolist() for c in frame.columns}
    assert list(grids_from_columns(columns)) == list(grids_from_frame(frame))
    with pytest.raises(ValueError, match="lacks columns borders"):
        list(grids_from_frame(frame.drop(columns=["borders"])))
    with pytest.raises(ValueError, match="lacks columns caption"):
        list(grids_from_columns({c: v for c, v in columns.items() if c != "caption"}))
    frame.loc[3, "text"] = None
    with pytest.raises(ValueError, match=r"table t-b, cell \(2, 2\) has no text"):
        list(grids_from_frame(frame))


def test_grid_batches_cut_anywhere_rebuild_the_same_grids():
    """The dbt model reads the grid relation a batch of rows at a time; a table cut by a batch boundary is whole."""
    import duckdb
    frame = pd.DataFrame(grid_rows("t-b", "synthetic", _accidents()) + grid_rows("t-a", "real", _outline())
                         + grid_rows("t-c", "real", _outline()), columns=list(GRID_COLUMNS))
    whole = list(grids_from_frame(frame))
    assert [t for t, _ in whole] == ["t-a", "t-b", "t-c"]
    con = duckdb.connect()
    con.register("grid_frame", frame)
    relation = con.table("grid_frame").order("table_id, grid_row, grid_col")
    assert list(grids_from_batches(column_batches(relation))) == whole
    ordered = frame.sort_values(["table_id", "grid_row", "grid_col"])
    columns = {c: ordered[c].tolist() for c in frame.columns}
    n = len(frame)
    for size in (1, 2, 5, len(_outline().cells), n - 1, n):
        batches = [{c: v[i:i + size] for c, v in columns.items()} for i in range(0, n, size)]
        assert list(grids_from_batches(batches)) == whole, size
    assert list(grids_from_batches([])) == []
    # the model's parts: the cells of whole tables as Arrow, rendered as render_tables renders the grids
    first = len(_outline().cells)  # t-a's cells, then t-b's and t-c's
    parts = [pa.Table.from_pandas(ordered.iloc[a:b], preserve_index=False) for a, b in ((0, first), (first, n))]
    rendered = pa.concat_tables([rendered_part(p) for p in parts]).to_pandas()
    pd.testing.assert_frame_equal(rendered, render_tables(iter(whole)))
    columns["text"][len(_outline().cells) + 3] = None  # a cell of t-b
    with pytest.raises(ValueError, match=r"table t-b, cell \(\d+, \d+\) has no text"):
        list(grids_from_batches([{c: v[:5] for c, v in columns.items()}, {c: v[5:] for c, v in columns.items()}]))


def test_registry_lookup_and_errors():
    assert format_names()[:3] == ("html", "csv", "markdown")
    assert get_format("markdown").display_name == "Markdown" and get_format("csv").is_text
    with pytest.raises(ValueError, match=r"unknown table format 'xlsx' \(registered: html, csv, markdown"):
        get_format("xlsx")
    with pytest.raises(ValueError, match="table format 'html' is registered already"):
        register_format("html", "HTML", lambda grid: "")
    with pytest.raises(ValueError, match="lower-case identifier"):
        register_format("Bad-Name", "Bad", lambda grid: "")
