"""Malformed seeds fail with the seed file, the line and the problem named; nothing is generated."""
from __future__ import annotations

import pandas as pd
import pytest

from generator_py.tables.generation import load_all
from generator_py.core.errors import SeedError

ATTRIBUTES = pd.DataFrame([
    ["d", "Year", "independent", "1", "Year"],
    ["d", "Gender", "independent", "1", "Gender"],
    ["d", "Food", "hierarchical", "1", "Category"],
    ["d", "Food", "hierarchical", "2", "Item"],
], columns=["domain", "code", "kind", "level", "attribute_name"])

VALUES = pd.DataFrame([
    ["d", "Year", "1", "1", "2020", None], ["d", "Year", "1", "2", "2021", None],
    ["d", "Gender", "1", "1", "Male", None], ["d", "Gender", "1", "2", "Female", None],
    ["d", "Food", "1", "1", "Dairy", None], ["d", "Food", "1", "2", "Meat", None],
    ["d", "Food", "2", "1", "Milk", "Dairy"], ["d", "Food", "2", "2", "Cream", "Dairy"],
    ["d", "Food", "2", "1", "Beef", "Meat"],
], columns=["domain", "code", "level", "position", "label", "parent_label"])

RANGES = pd.DataFrame([["d", "count", "10", "999"]], columns=["domain", "shortcut", "min", "max"])

TEMPLATES = pd.DataFrame([
    ["d", "t", "Title", "count", "Food;Gender", "[0];[0]", "Year", "[0]", "Total", "sum"],
], columns=["domain", "template_name", "value_name", "values", "row_codes", "row_samples", "col_codes",
            "col_samples", "agg_name1", "agg_fun1"])

EFFECTS = pd.DataFrame([
    ["d", "count", "baseline", "", "200", "typical count"],
    ["d", "count", "scale", "Gender=Female", "1.2", "more women"],
    ["d", "count", "shift", "Category=Dairy;Year=2021", "-30", "an interaction"],
    ["d", "count", "trend_scale", "Year", "0.05", "growth"],
    ["d", "count", "noise", "", "0.1", "spread"],
], columns=["domain", "shortcut", "effect", "condition", "amount", "reason"])

OPTIONS = pd.DataFrame([
    ["*", "replica", "2"], ["*", "shuffle", "none"], ["*", "col_row_levels", "1_2"],
    ["*", "col_row_name_pos", "none_none"], ["*", "col_row_agg_pos", "right_bottom"], ["*", "row_format", "new"],
], columns=["domain", "option", "value"])


def load(**changes):
    frames = dict(attributes=ATTRIBUTES, values=VALUES, ranges=RANGES, effects=EFFECTS, templates=TEMPLATES, options=OPTIONS)
    frames.update(changes)
    return load_all(**frames)


def with_cell(df, row, col, value):
    df = df.copy()
    df.loc[row, col] = value
    return df


def test_valid_seeds_expand():
    _, _, variants = load()
    assert len(variants) == 1 and variants[0].replicas == 2


@pytest.mark.parametrize("frame, row, col, value, seed, line, problem", [
    ("templates", 0, "row_codes", "Food;Colour", "table_templates", 2, "unknown attribute code 'Colour'"),
    ("templates", 0, "col_codes", "Year;Food", "table_templates", 2, "placed both in rows and in columns"),
    ("templates", 0, "row_samples", "[0];[2]", "table_templates", 2, "is not [0] or a range"),
    ("templates", 0, "row_samples", "[0];[a,3]", "table_templates", 2, "is not [0] or a range"),
    ("templates", 0, "agg_fun1", "median", "table_templates", 2, "unknown agg function 'median'"),
    ("templates", 0, "values", "[10,abc]", "table_templates", 2, "is not a number"),
    ("templates", 0, "values", "lots", "table_templates", 2, "neither a range"),
    ("ranges", 0, "max", "many", "domain_value_ranges", 2, "is not a number"),
    ("effects", 1, "effect", "multiply", "domain_value_effects", 3, "effect 'multiply' is not one of"),
    ("effects", 1, "amount", "a lot", "domain_value_effects", 3, "amount 'a lot' is not a number"),
    ("effects", 1, "amount", "-1", "domain_value_effects", 3, "is not a positive factor"),
    ("effects", 1, "condition", "Gender=Other", "domain_value_effects", 3, "'Other' is not a value of Gender"),
    ("effects", 1, "condition", "", "domain_value_effects", 3, "needs a condition"),
    ("effects", 1, "shortcut", "weight", "domain_value_effects", 3, "shortcut 'weight' has no unconditional range"),
    ("effects", 0, "amount", "5000", "domain_value_effects", 2, "outside the measure's range"),
    ("effects", 0, "condition", "Year=2020", "domain_value_effects", 2, "a baseline row has no condition"),
    ("effects", 3, "condition", "Gender", "domain_value_effects", 5, "needs an attribute with numeric labels"),
    ("effects", 3, "condition", "Colour", "domain_value_effects", 5, "is not an attribute of domain 'd'"),
    ("effects", 4, "amount", "2", "domain_value_effects", 6, "is not a relative spread between 0 and 1"),
    ("effects", 4, "effect", "baseline", "domain_value_effects", 6, "baseline with this condition is declared twice"),
    ("values", 3, "label", "Male", "domain_values", 5, "duplicate value 'Male'"),
    ("values", 8, "parent_label", "Fish", "domain_values", 10, "parent_label 'Fish'"),
    ("values", 2, "label", "Ma|le", "domain_values", 4, "gt delimiters"),
    ("values", 2, "label", "{Male}", "domain_values", 4, "gt delimiters"),
    ("values", 4, "label", "Dairy}", "domain_values", 6, "gt delimiters"),
    ("attributes", 1, "kind", "nominal", "domain_attributes", 3, "kind 'nominal'"),
    ("options", 4, "value", "middle_bottom", "table_template_options", 6, "col_row_agg_pos value 'middle_bottom'"),
])
def test_malformed_seed_names_file_line_and_problem(frame, row, col, value, seed, line, problem):
    frames = {"templates": TEMPLATES, "ranges": RANGES, "values": VALUES, "attributes": ATTRIBUTES, "options": OPTIONS,
              "effects": EFFECTS}
    with pytest.raises(SeedError) as err:
        load(**{frame: with_cell(frames[frame], row, col, value)})
    message = str(err.value)
    assert f"seeds/{seed}.csv line {line}" in message
    assert problem in message


def test_sample_count_must_match_code_count():
    bad = with_cell(TEMPLATES, 0, "row_samples", "[0]")
    with pytest.raises(SeedError, match="1 interval\\(s\\) for 2 code\\(s\\)"):
        load(templates=bad)


def test_option_weights_multiply_replicas():
    # agg positions weighted 3:1, row formats 1:2: replicas = replica x weight product, one variant per combination
    options = pd.concat([OPTIONS[OPTIONS["option"].isin(["replica", "shuffle", "col_row_levels", "col_row_name_pos"])],
                         pd.DataFrame([["*", "col_row_agg_pos", "right_bottom", "3"], ["*", "col_row_agg_pos", "none_none", ""],
                                       ["*", "row_format", "new", None], ["*", "row_format", "indent", "2"]],
                                      columns=["domain", "option", "value", "weight"])], ignore_index=True)
    _, _, variants = load(options=options)
    got = sorted((v.col_agg_pos, v.row_format, v.replicas) for v in variants)
    assert got == [("none", "indent", 4), ("none", "new", 2), ("right", "indent", 12), ("right", "new", 6)]


@pytest.mark.parametrize("value, weight, problem", [
    ("left_top", "0", "weight '0' is not a positive integer"),
    ("left_top", "1.5", "weight '1.5' is not a positive integer"),
    ("none_none", "2", "col_row_agg_pos value 'none_none' is listed twice"),
])
def test_bad_option_weight_names_line(value, weight, problem):
    options = pd.concat([OPTIONS.assign(weight=""), pd.DataFrame(
        [["*", "col_row_agg_pos", "none_none", ""], ["*", "col_row_agg_pos", value, weight]],
        columns=["domain", "option", "value", "weight"])], ignore_index=True)
    with pytest.raises(SeedError) as err:
        load(options=options)
    assert "seeds/table_template_options.csv line 9" in str(err.value) and problem in str(err.value)


def test_replica_takes_no_weight():
    with pytest.raises(SeedError, match="line 2.*replica takes no weight"):
        load(options=OPTIONS.assign(weight=["2", "", "", "", "", ""]))


def test_measure_aggregations_and_non_additive_attributes_are_read():
    ranges = RANGES.assign(aggregations=["avg;max;min"])
    attributes = ATTRIBUTES.assign(additive=["", "no", "yes", None])
    vocab, templates, _ = load(ranges=ranges, attributes=attributes,
                               templates=with_cell(TEMPLATES, 0, "agg_fun1", "avg"))
    assert templates[0].value_range.aggregations == ("avg", "min", "max")
    assert vocab["d"].non_additive == {"Gender"}


@pytest.mark.parametrize("frame, col, value, seed, line, problem", [
    ("ranges", "aggregations", "avg;median", "domain_value_ranges", 2, "is not a ;-list of at least two"),
    ("ranges", "aggregations", "avg", "domain_value_ranges", 2, "is not a ;-list of at least two"),
    ("attributes", "additive", "maybe", "domain_attributes", 2, "additive 'maybe' is not yes or no"),
])
def test_bad_measure_columns_name_file_line(frame, col, value, seed, line, problem):
    frames = {"ranges": RANGES, "attributes": ATTRIBUTES}
    df = frames[frame].assign(**{col: ""})
    with pytest.raises(SeedError) as err:
        load(**{frame: with_cell(df, 0, col, value)})
    assert f"seeds/{seed}.csv line {line}" in str(err.value) and problem in str(err.value)


def test_template_aggregate_must_be_admitted_by_its_measure():
    # a template that sums a measure admitting only avg/min/max (a temperature) is rejected
    with pytest.raises(SeedError, match="line 2.*agg_fun1 'sum' is not an aggregation the measure 'count' admits"):
        load(ranges=RANGES.assign(aggregations=["avg;min;max"]))


def _conditional_ranges(*rows):
    base = RANGES.assign(aggregations="", condition="")
    extra = pd.DataFrame([["d", "count", lo, hi, "", cond] for lo, hi, cond in rows], columns=list(base.columns))
    return pd.concat([base, extra], ignore_index=True)


def test_most_specific_conditional_range_is_used():
    from generator_py.tables.sampling import sample_table

    ranges = _conditional_ranges(("100", "199", "Gender=Male"), ("500", "599", "Gender=Male;Year=2021"),
                                 ("300", "399", "Category=Dairy"))
    options = with_cell(OPTIONS, 2, "value", "1_3")  # rows show Category, Item and Gender
    vocab, templates, variants = load(ranges=ranges, options=options)
    t = templates[0]
    assert len(t.conditional_ranges) == 3
    s = sample_table(t, variants[0], vocab["d"], 1, 5)
    names = [a.name for a in s.row_attributes] + [a.name for a in s.col_attributes]
    seen = 0
    for i, rl in enumerate(s.row_leaves):
        for j, cl in enumerate(s.col_leaves):
            labels = dict(zip(names, rl.labels + cl.labels))
            v = s.values[i, j]
            if labels["Gender"] == "Male" and labels["Year"] == "2021":
                assert 500 <= v <= 599
            elif labels["Gender"] == "Male":
                assert 100 <= v <= 199
            elif labels.get("Category") == "Dairy":
                assert 300 <= v <= 399
            else:
                assert 10 <= v <= 999
            seen += 1
    assert seen >= 8


@pytest.mark.parametrize("cond, problem", [
    ("Colour=Red", "is not Attribute=label"),
    ("Gender=Other", "'Other' is not a value of Gender"),
    ("Gender", "is not Attribute=label"),
])
def test_bad_condition_names_line(cond, problem):
    with pytest.raises(SeedError) as err:
        load(ranges=_conditional_ranges(("100", "199", cond)))
    assert "seeds/domain_value_ranges.csv line 3" in str(err.value) and problem in str(err.value)
