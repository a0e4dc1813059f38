"""Layout counterfactual sets (generator_py.counterfactuals): the bases, their toggles, the toggles kept, and the
questions every toggle is asked."""
import json

import pandas as pd
import pytest

from generator_py.counterfactuals import (PROPERTIES, PROPERTY_NAMES, Base, Layout, base_of, candidate_toggles,
                                          choose_bases, colliding_layouts, counterfactual_property, kept_toggles,
                                          laid_out, toggle_verdict)
from generator_py.counterfactuals.questions import counterfactual_question_id, layout_questions
from generator_py.questions.families import FAMILIES
from generator_py.questions.instances import COLUMNS, PlainRelationalTable
from generator_py.release.properties import TABLE_PROPERTY_COLUMNS
from generator_py.tables.relational import ShownAggregate, TableAttribute


def _instance(table_id="syn--d--t--v0001--r1", domain="d", row=("Country", "City", "Sex"),
              row_codes=("Place", "Place", "Sex"), col=("Year",), col_codes=("Year",), row_depth=None, **layout):
    names = list(row) + list(col)
    codes = list(row_codes) + list(col_codes)
    depth = len(row) if row_depth is None else row_depth
    settings = {"name_pos": "none_none", "col_agg_pos": "none", "row_agg_pos": "none", "row_format": "new",
                "borders": False, **layout}
    levels = [1 + sum(1 for c in codes[:i] if c == codes[i]) for i in range(len(codes))]
    return {"table_id": table_id, "domain": domain, "template_name": "t", "variant_id": 1, "replica": 1,
            "value_name": "Number", "value_is_integer": True, "agg_fun": "sum", "agg_name": "Total", "shuffle": "none",
            "row_depth": depth, "col_depth": len(names) - depth, **settings,
            "row_attributes": names[:depth], "row_attribute_codes": codes[:depth], "row_attribute_levels": levels[:depth],
            "col_attributes": names[depth:], "col_attribute_codes": codes[depth:], "col_attribute_levels": levels[depth:]}


def test_a_split_never_cuts_an_attribute_code_and_keeps_the_order():
    base = base_of(_instance())
    assert base.splits() == (2, 3)  # Place (2 levels) | Sex | Year
    laid = laid_out(_instance(), Layout(2, "none_none", "none", "none", "new", False))
    assert (laid["row_attributes"], laid["col_attributes"]) == (["Country", "City"], ["Sex", "Year"])
    assert laid["row_attribute_levels"] + laid["col_attribute_levels"] == [1, 2, 1, 1]
    assert (laid["row_depth"], laid["col_depth"]) == (2, 2)


@pytest.mark.parametrize("prop, settings, changed", [
    ("row_aggregation", {}, {"row_agg_pos": "bottom"}),
    ("row_aggregation", {"row_agg_pos": "top"}, {"row_agg_pos": "none"}),
    ("column_aggregation", {}, {"col_agg_pos": "right"}),
    ("implicit_row_aggregation", {"row_agg_pos": "bottom"}, {"row_agg_pos": "top"}),
    ("implicit_column_aggregation", {"col_agg_pos": "left"}, {"col_agg_pos": "right"}),
    ("split_header_cell", {"name_pos": "none_left"}, {"name_pos": "top_left"}),
    ("split_header_cell", {"name_pos": "top_left"}, {"name_pos": "none_none"}),
    ("row_group_label", {}, {"row_format": "indent"}),
    ("borders", {"borders": True}, {"borders": False}),
])
def test_each_toggle_changes_only_the_options_of_its_property(prop, settings, changed):
    base = base_of(_instance(**settings))
    (toggle,) = counterfactual_property(prop).toggles(base)
    differs = {k: v for k, v in vars(toggle).items() if vars(base.layout)[k] != v}
    assert differs == changed


def test_toggles_that_cannot_change_their_property_are_not_made():
    base = base_of(_instance(row=("Sex",), row_codes=("Sex",), col=("Year", "Month"), col_codes=("Year", "Month")))
    assert counterfactual_property("implicit_row_aggregation").toggles(base) == ()  # no aggregates to move
    assert counterfactual_property("row_group_label").toggles(base) == ()  # one row level: no group to head


def test_nesting_toggles_flip_the_axis_depth_and_keep_the_other_axis():
    flat_rows = base_of(_instance(row=("Sex",), row_codes=("Sex",), col=("Year", "Month", "Age"),
                                  col_codes=("Year", "Month", "Age")))
    toggles = counterfactual_property("row_nesting").toggles(flat_rows)
    assert [t.row_depth for t in toggles] == [2]  # 3 levels of columns would leave one: the other axis changes
    nested = base_of(_instance(row=("Sex", "Age"), row_codes=("Sex", "Age"), col=("Year", "Month"),
                               col_codes=("Year", "Month")))
    assert [t.row_depth for t in counterfactual_property("row_nesting").toggles(nested)] == [1]  # 1 | 3
    assert [t.row_depth for t in counterfactual_property("column_nesting").toggles(nested)] == [3]  # 3 | 1
    wide = base_of(_instance(row=("Sex", "Age", "Region"), row_codes=("Sex", "Age", "Region"),
                             col=("Year", "Month"), col_codes=("Year", "Month")))
    assert [t.row_depth for t in counterfactual_property("row_nesting").toggles(wide)] == [1]
    assert [t.row_depth for t in counterfactual_property("column_nesting").toggles(wide)] == [4]
    # a hierarchy on the rows cannot be cut: rows stay nested
    assert counterfactual_property("row_nesting").toggles(base_of(_instance())) == ()


def test_bases_are_seeded_take_the_domains_in_turn_and_grow_as_a_prefix():
    rows = [_instance(table_id=f"syn--{d}--t--v{i:04d}--r1", domain=d) for d in ("a", "b", "c") for i in range(5)]
    instances = pd.DataFrame(rows)
    four = choose_bases(instances, 4, seed=7)
    assert [t.split("--")[1] for t in four[:3]] == ["a", "b", "c"] and len(four) == 4
    assert choose_bases(instances, 9, seed=7)[:4] == four == choose_bases(instances.iloc[::-1], 4, seed=7)
    assert choose_bases(instances, 4, seed=8) != four
    assert choose_bases(instances, 0, seed=7) == [] and len(choose_bases(instances, 99, seed=7)) == 15


def test_candidate_toggles_carry_the_set_and_the_property():
    instances = pd.DataFrame([_instance(table_id="syn--a--t--v0001--r1", row_agg_pos="bottom")])
    frame = candidate_toggles(instances, 1, seed=1).to_pandas()
    assert set(frame["original_table_id"]) == {"syn--a--t--v0001--r1"}
    assert set(frame["counterfactual_set_id"]) == {"syn--a--t--v0001--r1--cf"}
    assert set(frame["counterfactual_property"]) <= set(PROPERTY_NAMES)
    assert {"row_aggregation", "implicit_row_aggregation", "borders"} <= set(frame["counterfactual_property"])
    assert all(t == f"syn--a--t--v0001--r1--cf--{p}" for t, p in zip(frame["table_id"], frame["counterfactual_property"]))
    # the data of every toggle is its base's: the same attributes in the same order
    for r in frame.to_dict("records"):
        assert list(r["row_attributes"]) + list(r["col_attributes"]) == ["Country", "City", "Sex", "Year"]


def _flags(**on) -> dict:
    return {c: bool(on.get(c, False)) for c in TABLE_PROPERTY_COLUMNS}


def test_a_toggle_is_kept_when_only_its_property_and_what_follows_from_it_change():
    base = _flags(row_nesting=True, balanced_row_nesting=True)
    with_agg = _flags(row_nesting=True, balanced_row_nesting=True, row_aggregation=True, global_row_aggregation=True,
                      local_row_aggregation=True, explicit_row_aggregation=True)
    assert toggle_verdict("row_aggregation", base, with_agg, (False, False)) is None
    also = dict(with_agg, split_header_cell=True)
    assert toggle_verdict("row_aggregation", base, also, (False, False)) == "also changes split_header_cell"
    assert toggle_verdict("split_header_cell", base, base, (False, False)).startswith("split_header_cell unchanged")
    assert toggle_verdict("borders", base, base, (False, True)) is None
    assert toggle_verdict("borders", base, base, (True, True)) == "borders unchanged"
    assert toggle_verdict("borders", base, dict(base, row_group_label=True), (False, True)) == (
        "also changes row_group_label")


def test_kept_toggles_say_which_side_has_the_property_and_keep_one_candidate():
    candidates = pd.DataFrame([
        {"table_id": "b--cf--row_aggregation", "original_table_id": "b", "counterfactual_property": "row_aggregation",
         "counterfactual_candidate": 1, "borders": False, "agg_fun": "sum"},
        {"table_id": "b--cf--borders", "original_table_id": "b", "counterfactual_property": "borders",
         "counterfactual_candidate": 1, "borders": True, "agg_fun": "sum"},
        {"table_id": "b--cf--row_nesting", "original_table_id": "b", "counterfactual_property": "row_nesting",
         "counterfactual_candidate": 1, "borders": False, "agg_fun": "sum"},
        {"table_id": "b--cf--row_nesting-2", "original_table_id": "b", "counterfactual_property": "row_nesting",
         "counterfactual_candidate": 2, "borders": False, "agg_fun": "sum"},
        {"table_id": "b--cf--row_nesting-3", "original_table_id": "b", "counterfactual_property": "row_nesting",
         "counterfactual_candidate": 3, "borders": False, "agg_fun": "sum"},
    ])
    base = _flags(row_aggregation=True, global_row_aggregation=True, explicit_row_aggregation=True)
    toggles = {"b--cf--row_aggregation": _flags(standard_relational_table=True), "b--cf--borders": base,
               "b--cf--row_nesting": dict(base, row_nesting=True, column_nesting=True),  # changes the columns too
               "b--cf--row_nesting-2": dict(base, row_nesting=True, symmetric_row_nesting=True),
               "b--cf--row_nesting-3": dict(base, row_nesting=True)}
    flags = pd.DataFrame([{"table_id": t, **f} for t, f in toggles.items()])
    kept, rejected = kept_toggles(candidates, flags, pd.DataFrame({"table_id": ["b"], "borders": [False]}),
                                  pd.DataFrame([{"table_id": "b", **base}]))
    has = dict(zip(kept["table_id"], kept["counterfactual_has_property"]))
    assert has == {"b--cf--row_aggregation": False, "b--cf--borders": True, "b--cf--row_nesting-2": True}
    assert [(r.table_id, r.reason) for r in rejected] == [("b--cf--row_nesting", "also changes column_nesting")]
    _, rejected = kept_toggles(candidates, flags, pd.DataFrame({"table_id": ["b"], "borders": [False]}),
                               pd.DataFrame([{"table_id": "b", **base}]), colliding_tables=["b--cf--borders"])
    assert ("b--cf--borders", "an aggregate equals a data cell") in [(r.table_id, r.reason) for r in rejected]


def test_colliding_layouts_are_those_summing_whose_aggregate_prints_like_a_data_cell():
    cells = pd.DataFrame({"table_id": ["s", "s", "s", "m", "m"], "role": ["data", "data", "aggregate", "data",
                                                                           "aggregate"],
                          "text": ["3", "5", "5", "7", "7"]})
    layouts = pd.DataFrame({"table_id": ["s", "m"], "agg_fun": ["sum", "max"]})
    assert colliding_layouts(cells, layouts) == ["s"]  # a max is one of its cells by definition


def test_every_property_is_a_flag_of_the_marts_or_the_rules():
    for p in PROPERTIES:
        assert p.flag is None or p.flag in TABLE_PROPERTY_COLUMNS
        assert set(p.may_change) <= set(TABLE_PROPERTY_COLUMNS)
    assert [p.name for p in PROPERTIES if p.flag is None] == ["borders"]


# ------------------------------------------------------------------ questions of a set


def _table(table_id, row_attrs, col_attrs, rows, shown=()):
    attrs = tuple(TableAttribute(n, n, 1, "row", i + 1) for i, n in enumerate(row_attrs)) + tuple(
        TableAttribute(n, n, 1, "col", i + 1) for i, n in enumerate(col_attrs))
    return PlainRelationalTable(table_id, "d", "t", "Number", attrs, rows, True, "sum", "Total", tuple(shown))


def test_a_toggle_asks_its_bases_questions_with_its_own_layout_facts():
    rows = [("F", "2020", 1.0), ("F", "2021", 2.0), ("M", "2020", 3.0), ("M", "2021", 4.0)]
    base = _table("b", ["Sex"], ["Year"], rows)
    toggle = _table("b--cf--column_aggregation", ["Sex", "Year"], [], rows,
                    shown=(ShownAggregate(("F",), (), 3.0), ShownAggregate((), (), 10.0)))
    spec = {"filters": [{"attribute": "Year", "values": ["2020"]}], "value_condition": None, "semi_join": None,
            "select": [{"kind": "aggregate", "function": "sum"}], "group_by": [], "order_by": [], "limit": None}
    q05_spec = {**spec, "filters": [{"attribute": "Sex", "values": ["F"]}]}
    base_questions = pd.DataFrame([
        {**{c: None for c in COLUMNS}, "question_id": "b--q04", "table_id": "b", "family": "q04",
         "spec_json": json.dumps(spec), "py_answer_json": json.dumps([[4.0]]), "question": "What is the total?"},
        {**{c: None for c in COLUMNS}, "question_id": "b--q05", "table_id": "b", "family": "q05",
         "spec_json": json.dumps(q05_spec), "py_answer_json": json.dumps([[3.0]]), "question": "Shown total?"},
    ])
    layouts = pd.DataFrame({"table_id": [toggle.table_id], "original_table_id": ["b"]})
    out = layout_questions(base_questions, layouts, {toggle.table_id: toggle}, FAMILIES, COLUMNS)
    assert list(out["question_id"]) == ["b--cf--column_aggregation--q04", "b--cf--column_aggregation--q05"]
    assert list(out["original_question_id"]) == ["b--q04", "b--q05"]
    assert list(out["question"]) == ["What is the total?", "Shown total?"]
    by = out.set_index("family")
    # Year is a row attribute on the toggle, a column attribute on the base
    assert (by.at["q04", "n_row_conditions"], by.at["q04", "n_col_conditions"]) == (1, 0)
    assert by.at["q05", "aggregate_in_table"] == True  # noqa: E712 - the toggle shows F's total, 3
    broken = base_questions.assign(py_answer_json=json.dumps([[99.0]]))
    with pytest.raises(ValueError, match="must keep the data"):
        layout_questions(broken, layouts, {toggle.table_id: toggle}, FAMILIES, COLUMNS)


def test_question_ids_of_a_toggle_follow_its_table_id():
    assert counterfactual_question_id("b--q01-1", "b", "b--cf--borders") == "b--cf--borders--q01-1"
    with pytest.raises(ValueError):
        counterfactual_question_id("c--q01", "b", "b--cf--borders")


# ------------------------------------------------------------------ asking the sets


def _asked(n_tables=30):
    from evaluation_py.configuration.model_specs import parse_eval_models
    from evaluation_py.running.requests import select_questions

    rows = []
    for i in range(n_tables):
        t = f"syn--d--t--v{i:04d}--r1"
        rows.append((t + "--q01", t, "synthetic", "original", t + "--q01"))
    for i in (3, 7):  # two sets, a toggle each
        t = f"syn--d--t--v{i:04d}--r1"
        rows.append((t + "--cf--borders--q01", t + "--cf--borders", "synthetic", "counterfactual", t + "--q01"))
    q = pd.DataFrame(rows, columns=["question_id", "table_id", "source", "variant", "original_question_id"])

    def ask(**entry):
        return select_questions(parse_eval_models([{"name": "o", "backend": "oracle", **entry}])[0], q, 42)
    return ask


def test_an_entry_asking_the_counterfactuals_gets_every_set_whole_whatever_its_sample():
    ask = _asked()
    plain = ask(sample=5)
    sets = ask(sample=5, variants=["original", "counterfactual"])
    toggles = sets[sets["variant"] == "counterfactual"]
    assert len(toggles) == 2
    bases = set(toggles["original_question_id"])
    assert bases <= set(sets["question_id"]) and set(plain["question_id"]) <= set(sets["question_id"])
    assert len(sets) == len(set(plain["question_id"]) | bases) + 2
    # originals first: a toggle whose prompt is its base's leaves the base its request
    assert list(sets["variant"]).index("counterfactual") == len(sets) - 2
    assert (ask(sample=5)["variant"] == "original").all()
