"""Grid changes a question's view shows (generator_py.render.grid_changes): permutations within groups keep each
value with its headers, noise and content variants keep the question's labels, a set value and a one-column
view change what they say and nothing else; a change that cannot be made is an error naming the question."""
from __future__ import annotations

import pytest

from generator_py.grid.cells import Cell, TableGrid
from generator_py.render.grid_changes import apply_change, permutable_groups
from generator_py.render.question_grid import question_grid, question_renderings_table, value_paths
from generator_py.render.registry import render

YEARS = ("2020", "2021", "2022")
ROWS = (("Fire", "Fatal"), ("Fire", "Minor"), ("Traffic", "Fatal"), ("Traffic", "Minor"))


def hand_grid():
    """Event > Severity down the side (Event spanning its rows), a Total row per event, years across, with a
    Total column: the layouts the generator makes, in small."""
    cells = [Cell(1, 1, 1, 1, "row_attribute_name", "Event"), Cell(1, 2, 1, 1, "row_attribute_name", "Severity")]
    cells += [Cell(1, 3 + j, 1, 1, "column_header", y) for j, y in enumerate(YEARS)]
    cells.append(Cell(1, 6, 1, 1, "column_header", "Total", True))
    paths, row, value = {}, 2, 1
    for event in ("Fire", "Traffic"):
        cells.append(Cell(row, 1, 3, 1, "row_header", event))
        for severity in ("Fatal", "Minor"):
            cells.append(Cell(row, 2, 1, 1, "row_header", severity))
            for j, y in enumerate(YEARS):
                cells.append(Cell(row, 3 + j, 1, 1, "data", str(value)))
                paths[(row, 3 + j)] = ((event, severity), (y,))
                value += 1
            cells.append(Cell(row, 6, 1, 1, "aggregate", "99", True))
            paths[(row, 6)] = ((event, severity), ())
            row += 1
        cells.append(Cell(row, 2, 1, 1, "row_header", "Total", True))
        for j, y in enumerate(YEARS):
            cells.append(Cell(row, 3 + j, 1, 1, "aggregate", "50", True))
            paths[(row, 3 + j)] = ((event,), (y,))
        row += 1
    return TableGrid(tuple(cells), header_rows=1, header_columns=2, caption="Number of accidents"), paths


def cell_at(grid, paths_of_value):
    """(row labels, column label) -> value text of every data cell, read off the grid's headers."""
    texts = grid.texts()
    out = {}
    for c in grid.cells:
        if c.role == "data":
            severity = texts[c.grid_row - 1][1]
            event = next(texts[r][0] for r in range(c.grid_row - 1, 0, -1) if texts[r][0])
            out[(event, severity, texts[0][c.grid_col - 1])] = c.text
    return out


def test_permutable_groups_are_the_data_lines_under_one_parent():
    grid, paths = hand_grid()
    assert sorted(permutable_groups(grid, paths, rows=True)) == [[2, 3], [5, 6]]  # the Total rows stay
    assert permutable_groups(grid, paths, rows=False) == [[3, 4, 5]]  # the Total column stays


@pytest.mark.parametrize("kind", ["permute_rows", "permute_columns"])
def test_a_permutation_keeps_every_value_with_its_headers_and_moves_something(kind):
    grid, paths = hand_grid()
    before = cell_at(grid, paths)
    changed = [apply_change(grid, {"kind": kind, "seed": s}, paths) for s in range(6)]
    for g in changed:
        assert cell_at(g, paths) == before  # each value under the same event, severity and year
        assert render(g, "csv") != render(grid, "csv")
        # the spanning event labels and the totals stay where they were
        assert [c for c in g.cells if c.rowspan > 1 or c.is_aggregate] == [c for c in grid.cells if c.rowspan > 1
                                                                            or c.is_aggregate]


def test_header_noise_changes_case_or_spacing_only():
    grid, paths = hand_grid()
    noisy = apply_change(grid, {"kind": "header_noise", "seed": 3}, paths)
    pairs = list(zip(grid.cells, noisy.cells))
    assert any(a.text != b.text for a, b in pairs)
    for a, b in pairs:
        assert " ".join(b.text.split()).lower() == a.text.lower()
        assert a.text == b.text or (a.is_header and not a.is_aggregate)


@pytest.mark.parametrize("variant", ["letters", "numbers"])
def test_a_content_variant_replaces_the_labels_not_named_consistently(variant):
    grid, paths = hand_grid()
    keep = ["Fatal", "2021"]
    g = apply_change(grid, {"kind": "content_variant", "variant": variant, "seed": 5, "keep": keep}, paths)
    mapping = {}
    for a, b in zip(grid.cells, g.cells):
        if a.text in keep or not a.is_header or a.is_aggregate:
            assert b.text == a.text
        else:
            assert b.text != a.text and (b.text.isalpha() if variant == "letters" else b.text.isdigit())
            assert mapping.setdefault(a.text, b.text) == b.text  # the same label, the same replacement
    replaced = set(mapping.values())
    assert len(replaced) == len(mapping) and not replaced & {c.text for c in grid.cells}


def test_set_value_and_column_view_change_what_they_say():
    grid, paths = hand_grid()
    g = apply_change(grid, {"kind": "set_value", "row_path": ["Traffic", "Minor"], "col_path": ["2021"],
                            "text": "-40"}, paths)
    diff = [(a, b) for a, b in zip(grid.cells, g.cells) if a != b]
    assert len(diff) == 1 and diff[0][1].text == "-40" and cell_at(g, paths)[("Traffic", "Minor", "2021")] == "-40"
    view = apply_change(grid, {"kind": "column_view", "col_path": ["2022"]}, paths)
    assert view.n_columns == 3 and view.texts()[0] == ["Event", "Severity", ""]
    assert [line[2] for line in view.texts()[1:]] == ["3", "6", "50", "9", "12", "50"]
    assert "2022" not in render(view, "csv") and "Fire" in render(view, "csv")


def test_a_change_that_cannot_be_made_names_the_question():
    grid, paths = hand_grid()
    with pytest.raises(ValueError, match=r"question q7: 0 data cells have the header paths"):
        question_grid(grid, question_id="q7", change={"kind": "set_value", "row_path": ["Flood"], "col_path": ["2020"],
                                                      "text": "1"}, paths=paths)
    with pytest.raises(ValueError, match="question q7: grid change kind 'shuffle' is not one of"):
        question_grid(grid, question_id="q7", change={"kind": "shuffle"}, paths=paths)
    one_row = TableGrid((Cell(1, 1, 1, 1, "corner", ""), Cell(1, 2, 1, 1, "column_header", "2020"),
                         Cell(2, 1, 1, 1, "row_header", "Fire"), Cell(2, 2, 1, 1, "data", "1")), 1, 1)
    with pytest.raises(ValueError, match="no group of two or more rows to permute"):
        apply_change(one_row, {"kind": "permute_rows", "seed": 1}, {(2, 2): (("Fire",), ("2020",))}, "q8")


def test_question_renderings_show_a_grid_change_in_every_format():
    import json

    import pandas as pd

    grid, paths = hand_grid()
    qs = pd.DataFrame([("t--robustness-3", "t", False, None, None, json.dumps({"kind": "header_noise", "seed": 1})),
                       ("t--robustness", "t", False, None, None, None)],
                      columns=["question_id", "table_id", "hides_caption", "blank_grid_row", "blank_grid_col",
                               "grid_change"])
    rows = question_renderings_table([("t", grid)], qs, {"t": paths}).to_pylist()
    assert [r["question_id"] for r in rows] == ["t--robustness-3"]
    noisy = apply_change(grid, {"kind": "header_noise", "seed": 1}, paths)
    assert rows[0]["rendering_html"] == render(noisy, "html") and rows[0]["rendering_csv"] == render(noisy, "csv")
    assert value_paths(["t", "t"], [2, 1], [3, 1], [["Fire", "Fatal"], None], [["2020"], None]) == {
        "t": {(2, 3): (("Fire", "Fatal"), ("2020",))}}
