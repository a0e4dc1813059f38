"""The six structure probes and the content variants on the small hand-built grid (tests/support/choice_grids.py)."""
from __future__ import annotations

import random

import pytest

from generator_py.choice_items.content_variants import grid_csv, replacement_map, variant_grid
from generator_py.choice_items.choice_table import parse_csv_grid
from generator_py.choice_items.option_text import options_differ
from generator_py.choice_items.probes import PROBES, GridView, Probe, make_probe, render, wrong_position

from support.choice_grids import GRID

VIEW = GridView(GRID)


def test_contents_of_cells_rows_and_columns():
    assert VIEW.content((2, 3)) == "11"
    assert VIEW.content((3, None)) == "a2 | 32 | 45 | 77"  # the empty first cell is left out
    assert VIEW.content((None, 1)) == "A | B"


def test_relative_targets_skip_empty_cells():
    assert VIEW.first_cell((2, 1), (1, 0)) == (5, 1)  # below A: two empty cells, then B
    assert VIEW.first_cell((2, 3), (-1, 0)) == (1, 3)
    assert VIEW.first_cell((2, 1), (0, -1)) is None
    assert VIEW.first_line(2, -1, "row") == 1
    assert VIEW.first_line(3, 0, "column") == 3
    assert VIEW.first_line(5, 1, "row") is None


@pytest.mark.parametrize("probe, expected", [
    (Probe("tsu_pcl", None, None, (3, 4), (3, 3)),
     ("What is the content of the cell located at row 3 and column 4?", "45", "32")),
    (Probe("tsu_prl", None, None, (5, None), (4, None)),
     ("What are the contents of the cells in row 5?", "B | b1 | 5 | 7 | 12", "Total | 43 | 69 | 112")),
    (Probe("tsu_pll", None, None, (None, 2), (None, 1)),
     ("What are the contents of the cells in column 2?", "a1 | a2 | Total | b1", "A | B")),
    (Probe("tsu_rcl", "left", (2, 4), (2, 3), (3, 3)),
     ("The anchor cell is 24 in row 2 and column 4. What is the content of the first cell left to the anchor "
      "cell within the same row?", "11", "32")),
    (Probe("tsu_rrl", "below", (3, 2), (4, None), (5, None)),
     ("The anchor cell is a2 in row 3 and column 2. What are the contents of the first row below the anchor cell?",
      "Total | 43 | 69 | 112", "B | b1 | 5 | 7 | 12")),
    (Probe("tsu_rll", "same", (1, 5), (None, 5), (None, 4)),
     ("The anchor cell is Total in row 1 and column 5. What are the contents of the cells within the same column "
      "as the anchor cell?", "Total | 35 | 77 | 112 | 12", "2021 | 24 | 45 | 69 | 7")),
])
def test_render_fills_table_9_templates(probe, expected):
    assert render(probe, VIEW) == expected


@pytest.mark.parametrize("kind", PROBES)
@pytest.mark.parametrize("seed", range(5))
def test_every_probe_has_a_non_empty_target_and_a_different_wrong_option_nearby(kind, seed):
    p = make_probe(kind, VIEW, random.Random(seed))
    question, right, wrong = render(p, VIEW)
    assert right and wrong and options_differ(right, wrong) and p.wrong != p.target
    assert (p.target[0] is None) == (p.wrong[0] is None) and (p.target[1] is None) == (p.wrong[1] is None)
    if kind in ("tsu_rcl", "tsu_rrl", "tsu_rll"):
        assert p.anchor is not None and VIEW.cell(*p.anchor) in question
        assert f"in row {p.anchor[0]} and column {p.anchor[1]}" in question
    if kind == "tsu_prl":
        assert p.target[1] is None and f"row {p.target[0]}?" in question


def test_wrong_position_never_equals_the_right_content_even_far_away():
    view = GridView([["x", "x", "x", "x", "x", "x", "y"]])
    for seed in range(5):
        assert wrong_position(view, (1, 1), random.Random(seed)) == (1, 7)
    assert wrong_position(GridView([["x", "x"]]), (1, 1), random.Random(0)) is None


def test_wrong_positions_cluster_around_the_target():
    view = GridView([[str(c + 10 * r) for c in range(1, 30)] for r in range(1, 30)])
    draws = [wrong_position(view, (15, 15), random.Random(s)) for s in range(300)]
    dist = [abs(r - 15) + abs(c - 15) for r, c in draws]
    assert max(dist) <= 8 and sum(d <= 2 for d in dist) / len(dist) > 0.6


@pytest.mark.parametrize("variant, alphabet", [("letters", set("abcdefghijklmnopqrstuvwxyz")),
                                               ("numbers", set("0123456789"))])
def test_content_variants_replace_texts_consistently(variant, alphabet):
    grid = GRID + [["", "a1", "11", "", ""]]  # a repeat of a1 and 11
    mapping = replacement_map(grid, variant, random.Random(3))
    assert set(mapping) == {t for line in grid for t in line if t}
    assert len(set(mapping.values())) == len(mapping)  # different texts, different strings
    for s in mapping.values():
        assert 1 <= len(s) <= 8 and set(s) <= alphabet and not (variant == "numbers" and s[0] == "0")
    out = variant_grid(grid, variant, random.Random(3))
    assert out[-1] == ["", mapping["a1"], mapping["11"], "", ""] and out[1][1] == mapping["a1"]
    assert out == variant_grid(grid, variant, random.Random(3))
    assert variant_grid(grid, "original", random.Random(3)) is grid


def test_variant_grid_round_trips_through_csv():
    out = variant_grid(GRID, "letters", random.Random(1))
    assert parse_csv_grid(grid_csv(out), "t1") == out


def test_unknown_content_variant_is_an_error():
    with pytest.raises(ValueError, match="unknown content variant 'emoji'"):
        variant_grid(GRID, "emoji", random.Random(0))
