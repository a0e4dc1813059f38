"""The value model: effects of header labels, trends, clipping to the cell's range, distinct values,
determinism, and the expectations seed's validation."""
from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from generator_py.core.errors import SeedError
from generator_py.tables.cell_values import draw_cells, free_value
from generator_py.tables.generation import load_all
from generator_py.tables.sampling import sample_table
from generator_py.vocabulary.domains import load_domains
from generator_py.vocabulary.value_expectations import load_value_expectations

ATTRIBUTES = pd.DataFrame([
    ["d", "Year", "independent", "1", "Year"],
    ["d", "Gender", "independent", "1", "Gender"],
    ["d", "Place", "hierarchical", "1", "Country"],
    ["d", "Place", "hierarchical", "2", "City"],
], columns=["domain", "code", "kind", "level", "attribute_name"])

VALUES = pd.DataFrame([
    ["d", "Year", "1", "1", "2020", None], ["d", "Year", "1", "2", "2021", None], ["d", "Year", "1", "3", "2022", None],
    ["d", "Gender", "1", "1", "Male", None], ["d", "Gender", "1", "2", "Female", None],
    ["d", "Place", "1", "1", "North", None], ["d", "Place", "1", "2", "South", None],
    ["d", "Place", "2", "1", "Aby", "North"], ["d", "Place", "2", "2", "Bey", "North"], ["d", "Place", "2", "1", "Cee", "South"],
], columns=["domain", "code", "level", "position", "label", "parent_label"])

RANGES = pd.DataFrame([["d", "count", "10", "9999", "", ""], ["d", "count", "10", "60", "", "Country=South"]],
                      columns=["domain", "shortcut", "min", "max", "aggregations", "condition"])

TEMPLATES = pd.DataFrame([
    ["d", "t", "Title", "count", "Place;Gender", "[0];[0]", "Year", "[0]", "Minimum", "min"],
], columns=["domain", "template_name", "value_name", "values", "row_codes", "row_samples", "col_codes",
            "col_samples", "agg_name1", "agg_fun1"])

OPTIONS = pd.DataFrame([
    ["*", "replica", "1"], ["*", "shuffle", "none"], ["*", "col_row_levels", "1_3"],
    ["*", "col_row_name_pos", "none_none"], ["*", "col_row_agg_pos", "none_none"], ["*", "row_format", "new"],
], columns=["domain", "option", "value"])

COLUMNS = ["domain", "shortcut", "effect", "condition", "amount", "reason"]


def effects(*rows):
    return pd.DataFrame([["d", "count", *r, ""] for r in rows], columns=COLUMNS)


NO_NOISE = ("noise", "", "0")


def table(effect_rows, seed=5, ranges=RANGES):
    vocab, templates, variants = load_all(attributes=ATTRIBUTES, values=VALUES, ranges=ranges,
                                          effects=effects(*effect_rows), templates=TEMPLATES, options=OPTIONS)
    s = sample_table(templates[0], variants[0], vocab["d"], 1, seed)
    names = [a.name for a in s.row_attributes] + [a.name for a in s.col_attributes]
    cells = {}
    for i, rl in enumerate(s.row_leaves):
        for j, cl in enumerate(s.col_leaves):
            cells[tuple(x for x in rl.labels + cl.labels if x is not None)] = s.values[i, j]
    assert names == ["Country", "City", "Gender", "Year"]
    return s, cells


def near(cells, key, expected):
    """Equal expected values over the three years: one keeps it, the others move by a unit or two."""
    return abs(cells[key] - expected) <= 2 and sorted(v for k, v in cells.items() if k[:3] == key[:3]) == [
        expected - 1, expected, expected + 1]


def test_shifts_scales_and_interactions_apply_to_matching_cells():
    _, cells = table([("baseline", "", "1000"), ("shift", "Gender=Female", "100"), ("scale", "City=Bey", "2"),
                      ("shift", "City=Aby;Gender=Male", "-300"), NO_NOISE],
                     ranges=RANGES.iloc[:1])
    assert near(cells, ("North", "Aby", "Male", "2020"), 700)
    assert near(cells, ("North", "Aby", "Female", "2020"), 1100)
    assert near(cells, ("North", "Bey", "Male", "2021"), 2000)
    assert near(cells, ("North", "Bey", "Female", "2021"), 2200)  # (1000 + 100) x 2


def test_trends_count_from_the_middle_year():
    _, cells = table([("baseline", "", "1000"), ("trend_shift", "Year", "50"), ("trend_scale", "Year", "0.1"), NO_NOISE],
                     ranges=RANGES.iloc[:1])
    # 2021 is the middle of 2020..2022; values stay distinct by the smallest unit (1 here)
    middle = sorted(v for k, v in cells.items() if k[-1] == "2021")
    assert middle == [1000 + i for i in range(-2, len(middle) - 2)]
    assert sorted(v for k, v in cells.items() if k[-1] == "2022")[2] == round(1050 * 1.1)
    assert sorted(v for k, v in cells.items() if k[-1] == "2020")[2] == round(950 / 1.1)


def test_values_are_clipped_to_the_cells_range_and_distinct():
    # South's range is [10, 60]: a baseline far above piles the values at its top, moved down by one unit
    s, cells = table([("baseline", "", "5000"), NO_NOISE])
    south = sorted(v for k, v in cells.items() if k[0] == "South")
    assert south == [60 - i for i in range(len(south))][::-1]
    north = sorted(v for k, v in cells.items() if k[0] == "North")
    assert north == list(range(int(north[0]), int(north[0]) + len(north))) and abs(np.median(north) - 5000) <= 1
    assert len(np.unique(s.values)) == s.values.size


def test_noise_spreads_values_by_its_declared_share():
    _, cells = table([("baseline", "", "5000"), ("noise", "", "0.1")], ranges=RANGES.iloc[:1])
    values = np.array(list(cells.values()))
    assert 5000 * 0.02 < values.std() < 5000 * 0.3 and abs(values.mean() - 5000) < 5000 * 0.15


def test_same_seed_same_values_another_seed_others():
    rows = [("baseline", "", "1000"), ("scale", "Country=South", "0.03"), ("noise", "", "0.2")]
    a, _ = table(rows, seed=3)
    b, _ = table(rows, seed=3)
    c, _ = table(rows, seed=4)
    assert np.array_equal(a.values, b.values) and not np.array_equal(a.values, c.values)


def test_a_measure_without_rows_gets_the_middle_of_its_range():
    _, cells = table([], ranges=RANGES.iloc[:1])
    values = np.array(list(cells.values()))
    assert 10 <= values.min() and values.max() <= 9999
    assert abs(np.median(values) - (10 + 9999) / 2) < 2500


def test_free_value_takes_the_nearest_free_unit_inside_the_range_then_overflows_upwards():
    assert free_value(500, 100, 900, 100, {500}) == 600
    assert free_value(500, 100, 900, 100, {500, 600}) == 400
    assert free_value(900, 100, 900, 100, {900}) == 800
    assert free_value(200, 100, 200, 100, {100, 200}) == 300


def test_draw_cells_marks_every_value_taken():
    vocab, templates, _ = load_all(attributes=ATTRIBUTES, values=VALUES, ranges=RANGES.iloc[:1],
                                   effects=effects(("baseline", "", "100"), NO_NOISE), templates=TEMPLATES,
                                   options=OPTIONS)
    used: set[int] = set()
    cents, low, high = draw_cells(templates[0], ["Gender"], [("Male",), ("Female",)], ["Year"], [("2020",), ("2021",)],
                                  random.Random(1), used)
    assert sorted(used) == sorted(cents.reshape(-1).astype(int).tolist()) == [9900, 10000, 10100, 10200]
    assert (low == 1000).all() and (high == 999900).all()


def test_a_measure_with_effects_needs_a_baseline():
    with pytest.raises(SeedError, match=r"domain_value_effects.csv line 2.*has effects but no baseline"):
        table([("shift", "Gender=Female", "3")])


def _vocab():
    return load_domains(ATTRIBUTES, VALUES, RANGES)


def test_expectations_resolve_labels_to_their_attribute():
    out = load_value_expectations(pd.DataFrame([["d", "count: Male;South < Female"], ["d", "count: Year=2022 > 2020"]],
                                               columns=["domain", "statement"]), _vocab())
    assert out[["statement_id", "side", "attribute", "label", "n_terms"]].values.tolist() == [
        [2, "lower", "Country", "South", 2], [2, "lower", "Gender", "Male", 2], [2, "higher", "Gender", "Female", 1],
        [3, "lower", "Year", "2020", 1], [3, "higher", "Year", "2022", 1]]
    assert out["statement"].iloc[0] == "d: count: Male;South < Female"


@pytest.mark.parametrize("statement, problem", [
    ("count Male < Female", "is not `measure: side < side`"),
    ("weight: Male < Female", "measure 'weight' has no range"),
    ("count: Male < Other", "'Other' is not a value of any attribute"),
    ("count: Gender=Other < Male", "'Other' is not a value of an attribute 'Gender'"),
    ("count: Male < Male", "both sides name the same cells"),
    ("count: Male;Female < North", "names one attribute twice"),
])
def test_bad_expectation_names_file_line_and_problem(statement, problem):
    frame = pd.DataFrame([["d", "count: Male < Female"], ["d", statement]], columns=["domain", "statement"])
    with pytest.raises(SeedError) as err:
        load_value_expectations(frame, _vocab())
    assert "seeds/domain_value_expectations.csv line 3" in str(err.value) and problem in str(err.value)


def test_project_seeds_load_and_every_measure_of_a_template_has_effects():
    from pathlib import Path

    seeds = Path(__file__).resolve().parents[2] / "seeds"

    def read(name):
        return pd.read_csv(seeds / f"{name}.csv", dtype=str, keep_default_na=False).replace("", None)

    vocab, templates, _ = load_all(attributes=read("domain_attributes"), values=read("domain_values"),
                                   ranges=read("domain_value_ranges"), effects=read("domain_value_effects"),
                                   templates=read("table_templates"), options=read("table_template_options"))
    assert len({t.domain for t in templates}) == 7
    assert all(t.value_model is not None and (t.value_model.shifts or t.value_model.scales) for t in templates)
    statements = load_value_expectations(read("domain_value_expectations"), vocab)
    assert set(statements["domain"]) == {t.domain for t in templates}
