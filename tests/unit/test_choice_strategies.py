"""The five distractor strategies and the option rule on a small hand-built grid (tests/support/choice_grids.py)."""
from __future__ import annotations

import random

import pytest

from generator_py.choice_items.option_text import option_values, options_differ
from generator_py.choice_items.strategies import (
    Question, aggregate_for_data, neighbour_cell, numeric_perturbation, perturbed_numbers, sibling_condition,
    wrong_function, _siblings)

from support.choice_grids import small_table, spec

SUM = [{"kind": "aggregate", "function": "sum"}]
MAX = [{"kind": "aggregate", "function": "max"}]


def q(template_id, filters, answer_rows, select=None, **kw) -> Question:
    from generator_py.release.gt import format_gt

    return Question("q1", template_id, spec(filters, select, **kw), answer_rows, format_gt(answer_rows))


LOOKUP = q(1, [("City", ["a1"]), ("Year", ["2020"])], [["11"]])


def test_option_values_read_like_scoring():
    assert option_values("{Germany | 12.50} || {7}") == {"germany", "12.5", "7"}
    assert not options_differ("{1 | 2}", "{2 | 1}")
    assert not options_differ("{12.50}", "{12.5}")
    assert not options_differ("{Total}", "{total}")
    assert options_differ("{1}", "{2}")


def test_answer_option_is_the_gt_format():
    from generator_py.choice_items.option_text import answer_option
    from generator_py.release.gt import format_gt

    rows = [["Germany", 12.5, None], [True, 1, 1.0], [3.14159, "x", 2.005]]
    assert answer_option(rows) == format_gt(rows) == "{Germany | 12.5} || {true | 1 | 1} || {3.14 | x | 2.01}"
    assert answer_option([[1], [True]]) == "{1} || {true}"


@pytest.mark.parametrize("seed", range(6))
def test_neighbour_cell_reads_an_adjacent_data_cell(seed):
    d = neighbour_cell(LOOKUP, small_table(), random.Random(seed))
    # (2, 3) has data neighbours (3, 3) = 32 below and (2, 4) = 24 right; the header and label are not data
    expected = {"{32}": "row 2 column 3 -> row 3 column 3", "{24}": "row 2 column 3 -> row 2 column 4"}
    assert d.strategy == "neighbour_cell"
    assert expected[d.option] == d.provenance


def test_neighbour_cell_replaces_one_value_of_a_list_with_a_cell_outside_it():
    question = q(2, [("City", ["a1", "a2"]), ("Year", ["2020"])], [["11"], ["32"]])
    for seed in range(8):
        d = neighbour_cell(question, small_table(), random.Random(seed))
        assert d.option in {"{24} || {32}", "{11} || {45}"}  # never 11 for 32 or back: both already answers


def test_neighbour_cell_does_not_apply_to_an_aggregate():
    assert neighbour_cell(q(4, [("City", ["a1"])], [["24"]], MAX), small_table(), random.Random(0)) is None


def test_aggregate_for_data_gives_the_most_specific_group_aggregate():
    d = aggregate_for_data(LOOKUP, small_table(), random.Random(0))
    # a1's row total (35) and A's 2020 total (43) are both one level up; ties go in grid order
    assert (d.option, d.provenance) == ("{35}", "data cell row 2 column 3 -> aggregate row 2 column 5")


@pytest.mark.parametrize("seed", range(4))
def test_aggregate_for_data_reverse_gives_a_data_cell_of_the_group(seed):
    shown = q(5, [("Country", ["A"]), ("Year", ["2020"])], [["43"]], SUM)
    d = aggregate_for_data(shown, small_table(), random.Random(seed))
    assert d.option in {"{11}", "{32}"}
    assert d.provenance.startswith("aggregate -> data cell row ")


def test_siblings_under_the_same_parent_come_first():
    assert _siblings(small_table(), "City", "a1", {"a1"}) == ["a2", "b1"]
    assert _siblings(small_table(), "City", "b1", {"b1"}) == ["a1", "a2"]


@pytest.mark.parametrize("seed", range(6))
def test_sibling_condition_reruns_the_question_with_a_sibling_value(seed):
    d = sibling_condition(LOOKUP, small_table(), random.Random(seed))
    expected = {"City: a1 -> a2": "{32}", "Year: 2020 -> 2021": "{24}"}
    assert expected[d.provenance] == d.option


def test_wrong_function_swaps_max_for_min_and_sum_for_average():
    top = q(4, [("City", ["a1"]), ("Year", ["2020", "2021"])], [["24"]], MAX)
    d = wrong_function(top, small_table(), random.Random(0))
    assert (d.option, d.provenance) == ("{11}", "max -> min")
    total = q(4, [("City", ["a1"]), ("Year", ["2020", "2021"])], [["35"]], SUM)
    d = wrong_function(total, small_table(), random.Random(0))
    assert (d.option, d.provenance) == ("{17.5}", "sum -> avg")
    assert wrong_function(LOOKUP, small_table(), random.Random(0)) is None


def test_wrong_function_gives_none_when_the_swap_states_the_same_values():
    # one cell: its max and min are the same number
    one = q(4, [("City", ["a1"]), ("Year", ["2020"])], [["11"]], MAX)
    assert wrong_function(one, small_table(), random.Random(0)) is None


@pytest.mark.parametrize("seed", range(10))
def test_numeric_perturbation_keeps_precision_and_stays_near(seed):
    d = numeric_perturbation(q(1, [("City", ["a1"]), ("Year", ["2021"])], [["24"]]), small_table(),
                             random.Random(seed))
    new = int(d.option.strip("{}"))
    assert new != 24 and abs(new - 24) <= 3 and d.provenance == f"24 -> {new}"
    for s in perturbed_numbers("12.5", random.Random(seed)):
        assert s != "12.5" and len(s.split(".")[1]) == 1 and not s.endswith("0") and abs(float(s) - 12.5) <= 0.61  # 5 % of 125 tenths: 6 tenths


def test_numeric_perturbation_leaves_labels_alone_and_avoids_answer_values():
    grouped = q(10, [("Country", ["A"])], [["2020", "32"], ["2021", "45"]],
                [{"kind": "attribute", "name": "Year"}, {"kind": "aggregate", "function": "max"}])
    for seed in range(10):
        d = numeric_perturbation(grouped, small_table(), random.Random(seed))
        rows = [r.strip("{}").split(" | ") for r in d.option.split(" || ")]
        assert [r[0] for r in rows] == ["2020", "2021"]
        changed = [r[1] for r in rows if r[1] not in ("32", "45")]
        assert len(changed) == 1 and changed[0] not in ("2020", "2021")
