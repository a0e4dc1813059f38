import json

import pytest

from evaluation_py.baselines.html_table import parse_html_table
from generator_py.grid.cells import Cell, TableGrid
from generator_py.grid.release_csv import grid_from_release_csv
from generator_py.render.registry import render
from support.html_fixtures import NESTED


def test_nested_spans_and_paths():
    t = parse_html_table(NESTED)
    assert t.caption == "Number of accidents"
    assert t.header_rows == [0, 1]
    # The rowspan/colspan grid is full.
    assert t.texts()[0] == ["Event \\ Year", "Event \\ Year", "2020", "2020", "2021", "2021", "Total"]
    assert t.texts()[1] == ["Event \\ Year", "Event \\ Year", "Q1", "Q2", "Q1", "Q2", "Total"]
    assert t.grid[1][6].anchor == (0, 6) and t.grid[1][6].is_header
    cells = {(v.row_path, v.column_path): v for v in t.value_cells}
    car = cells[(("Road", "Car"), ("2020", "Q2"))]
    assert car.text == "2" and not car.is_aggregate
    boat = cells[(("Water", "Boat"), ("2020", "Q1"))]
    assert boat.text == "9"  # &nbsp; and whitespace normalised
    total = cells[(("Road", "Bus"), ("Total",))]
    assert total.text == "26" and total.is_aggregate and "agg" in total.classes
    grand = cells[(("Total",), ("Total",))]
    assert grand.text == "78" and grand.is_aggregate
    assert t.group_label_rows == [2, 5]
    assert len(t.value_cells) == 3 * 5 + 5


def test_group_label_at_same_level_and_rowspan_rows():
    html = """<table><tr><th colspan="2">Type</th><th>Rural</th><th>Urban</th></tr>
    <tr><th colspan="2">Purchases</th><td></td><td></td></tr>
    <tr><th colspan="2">Gold</th><td>1</td><td>2</td></tr>
    <tr><th colspan="2">Silver</th><td>3</td><td>4</td></tr>
    <tr><th colspan="2">Sold</th><td></td><td></td></tr>
    <tr><th colspan="2">Gold</th><td>5</td><td>6</td></tr>
    <tr><th rowspan="2">DOHA</th><th>M</th><td>7</td><td>8</td></tr>
    <tr><th>F</th><td>9</td><td>10</td></tr>
    </table>"""
    t = parse_html_table(html)
    paths = {v.text: v.row_path for v in t.value_cells}
    assert paths["1"] == ("Purchases", "Gold")
    assert paths["4"] == ("Purchases", "Silver")
    assert paths["5"] == ("Sold", "Gold")
    assert paths["7"] == ("Sold", "DOHA", "M")  # a group label holds until the next one
    assert paths["10"] == ("Sold", "DOHA", "F")
    assert {v.column_path for v in t.value_cells} == {("Rural",), ("Urban",)}


def test_reference_synthetic_html(synthetic_sample_dir):
    t = parse_html_table((synthetic_sample_dir / "Number_of_accidents_set150_5_HCT.html").read_text())
    assert t.header_rows == [0, 1, 2]
    assert len(t.value_cells) == 32
    v = next(v for v in t.value_cells if v.text == "36.00")
    assert v.row_path == ("Drowning", "Serious") and v.column_path == ("2020", "Q2", "Female")

    t = parse_html_table((synthetic_sample_dir / "Number_of_accidents_set321_2_HCT.html").read_text())
    assert t.header_rows == [0, 1]
    v = next(v for v in t.value_cells if v.text == "44.00")
    assert v.row_path == ("Traffic", "Serious") and v.column_path == ("Female", "2021")
    fire = [v for v in t.value_cells if v.row_path == ("Fire",)]
    assert len(fire) == 9 and all(v.is_aggregate for v in fire)  # outline rows carry local aggregates
    avg = next(v for v in t.value_cells if v.text == "43.67" and v.row == 3)
    assert avg.column_path == ("Male", "Average") and avg.is_aggregate
    assert t.texts()[11][:2] == ["Average", ""]


def test_no_table():
    with pytest.raises(ValueError):
        parse_html_table("<p>no table</p>")


def test_rendered_grid_parses_with_paths():
    cells = [Cell(1, 1, 1, 1, "corner", "Name"), Cell(1, 2, 1, 1, "column_header", "A|B"),
             Cell(1, 3, 1, 1, "column_header", "C"), Cell(2, 1, 1, 1, "row_header", "x <y>"),
             Cell(2, 2, 1, 1, "data", "1"), Cell(2, 3, 1, 1, "data", ""), Cell(3, 1, 1, 1, "row_header", "z"),
             Cell(3, 2, 1, 1, "data", "2"), Cell(3, 3, 1, 1, "data", "3")]
    parsed = parse_html_table(render(TableGrid(tuple(cells), 1, 1, caption="T & U"), "html"))
    assert parsed.caption == "T & U"
    assert {(v.row_path, v.column_path, v.text) for v in parsed.value_cells} == {
        (("x <y>",), ("A|B",), "1"), (("z",), ("A|B",), "2"), (("z",), ("C",), "3"),
    }


def test_release_merge_markers_give_header_paths():
    release_csv = (",0,1,2,3,4\n0,Dataset,Model,Faithful,__,Use\n1,__,__,Y,N,__\n2,NQ,GPT,90,10,83\n"
                   "3,__,Ours,80,7,80\n4,Women,__,__,__,__\n5,All,Ours,1,2,3\n")
    t = parse_html_table(render(grid_from_release_csv(release_csv), "html"))
    v = next(v for v in t.value_cells if v.text == "7")
    assert v.row_path == ("NQ", "Ours") and v.column_path == ("Faithful", "N")
    v = next(v for v in t.value_cells if v.text == "83")
    assert v.column_path == ("Use",)
    v = next(v for v in t.value_cells if v.text == "3" and v.row == 5)
    assert v.row_path == ("Women", "All", "Ours")


def test_real_sample_tables_parse(real_sample_dir):
    data = json.loads((real_sample_dir / "realWorld_HCT_qaps.sample.json").read_text())
    for table in data:
        grid = grid_from_release_csv(table["table_info"]["table_formats"]["csv"])
        t = parse_html_table(render(grid, "html"))
        assert t.n_rows == grid.n_rows and t.n_columns == grid.n_columns, table["table_id"]
        assert len(t.header_rows) == grid.header_rows
        assert t.value_cells, table["table_id"]
