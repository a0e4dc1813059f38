"""Probes read the cell grid (int_table_grid); their positions are those of the table's CSV rendering."""
from __future__ import annotations

import pandas as pd
import pytest

from generator_py.choice_items.choice_table import parse_csv_grid, text_grids
from generator_py.choice_items.items import probe_items
from generator_py.choice_items.probes import GridView
from generator_py.grid.cells import Cell, TableGrid
from generator_py.render.csv import render_csv

# a real-table shape: a column header spanning two columns, a row header spanning two rows, an empty
# data position, and a header cell whose text holds a comma and a quote (CSV quoting)
MERGED = TableGrid((
    Cell(1, 1, 2, 1, "corner", "Region"), Cell(1, 2, 1, 2, "column_header", "Sales, \"net\""),
    Cell(1, 4, 2, 1, "column_header", "Share"),
    Cell(2, 2, 1, 1, "column_header", "2020"), Cell(2, 3, 1, 1, "column_header", "2021"),
    Cell(3, 1, 2, 1, "row_header", "North"), Cell(3, 2, 1, 1, "data", "10"), Cell(3, 3, 1, 1, "data", "12"),
    Cell(3, 4, 1, 1, "data", "0.4"), Cell(4, 2, 1, 1, "data", "7"), Cell(4, 4, 1, 1, "data", "0.6"),
), header_rows=2, header_columns=1)


def _frame(table_id: str, grid: TableGrid) -> pd.DataFrame:
    return pd.DataFrame([{"table_id": table_id, "grid_row": c.grid_row, "grid_col": c.grid_col, "rowspan": c.rowspan,
                          "colspan": c.colspan, "text": c.text} for c in grid.cells])


def test_grid_positions_are_the_csv_positions_with_merged_cells():
    grids = text_grids(_frame("t1", MERGED))
    assert grids["t1"] == parse_csv_grid(render_csv(MERGED), "t1")
    assert grids["t1"] == [
        ["Region", 'Sales, "net"', "", "Share"],
        ["", "2020", "2021", ""],
        ["North", "10", "12", "0.4"],
        ["", "7", "", "0.6"],
    ]
    view = GridView(grids["t1"])
    # a spanned position is empty: the merged header's text stands at its anchor only
    assert view.content((None, 3)) == "2021 | 12" and view.content((1, None)) == 'Region | Sales, "net" | Share'


def test_a_grid_as_wide_and_high_as_its_spans_reach():
    spanned = TableGrid((Cell(1, 1, 1, 3, "column_header", "All"), Cell(2, 1, 2, 1, "row_header", "x"),
                         Cell(2, 2, 1, 1, "data", "1")), header_rows=1, header_columns=1)
    assert text_grids(_frame("t", spanned))["t"] == [["All", "", ""], ["x", "1", ""], ["", "", ""]]
    assert render_csv(spanned).count("\n") == 3


def test_probes_on_a_merged_grid_name_the_contents_of_its_csv():
    frame = pd.concat([_frame("t1", MERGED), _frame("t0", MERGED)])
    csv_grid = GridView(parse_csv_grid(render_csv(MERGED), "t1"))
    items = probe_items(text_grids(frame), seed=3)
    assert {i["table_id"] for i in items} == {"t0", "t1"} and len(items) == 2 * 6 * 3
    for i in items:
        if i["content_variant"] != "original":
            continue
        right = i["option_a"] if i["correct_option"] == "A" else i["option_b"]
        wrong = i["option_b"] if i["correct_option"] == "A" else i["option_a"]
        assert right == csv_grid.content((i["target_row"], i["target_col"])), i["item_id"]
        assert wrong == csv_grid.content((i["wrong_row"], i["wrong_col"])), i["item_id"]


def test_bad_grid_cells_are_errors_naming_the_table_and_cell():
    frame = _frame("t1", MERGED)
    with pytest.raises(ValueError, match="lack columns rowspan"):
        text_grids(frame.drop(columns=["rowspan"]))
    broken = frame.astype({"text": object})
    broken.loc[3, "text"] = None
    with pytest.raises(ValueError, match=r"table t1, cell \(2, 2\) has no text"):
        text_grids(broken)
    broken = frame.copy()
    broken.loc[0, "colspan"] = 0
    with pytest.raises(ValueError, match=r"table t1, cell \(1, 1\) has a position or span below 1"):
        text_grids(broken)
