"""su_tis positions, the m_tis pseudo-relevant table and the assembled items on the small grid."""
from __future__ import annotations

import json
import random

import pandas as pd

from generator_py.choice_items.items import probe_items, question_items
from generator_py.choice_items.option_text import options_differ
from generator_py.choice_items.positions import position_question
from generator_py.choice_items.pseudo_table import pseudo_relevant_table
from generator_py.choice_items.strategies import Question
from generator_py.release.gt import format_gt

from support.choice_grids import GRID, small_table, spec


def _q(template_id, filters, rows, select=None, **kw):
    return Question("q", template_id, spec(filters, select, **kw), rows, format_gt(rows))


def test_position_question_names_the_smaller_set_of_rows_or_columns():
    t = small_table()
    one = position_question(_q(1, [("City", ["a1"]), ("Year", ["2020"])], [["11"]]), t)
    assert (one.question, one.axis, one.positions) == ("What is the data value in row 2 where Year is 2020?", "row", (2,))
    two = position_question(_q(2, [("City", ["a1", "a2"]), ("Year", ["2020"])], [["11"], ["32"]]), t)
    assert two.question == "What are the data values in column 3 where City is a1 or a2?"
    agg = position_question(_q(10, [("Country", ["A"]), ("Year", ["2021"])], [["A", "45"]],
                                [{"kind": "attribute", "name": "Country"}, {"kind": "aggregate", "function": "max"}],
                                group_by=["Country"]), t)
    assert agg.question == ("What is the maximum of the data values in column 4 where Country is A, for each country?"
                            " Also give the country.")


def test_position_question_skips_value_conditions_and_rankings():
    t = small_table()
    ranked = _q(12, [("Year", ["2020"])], [["32"]], order_by=[{"kind": "value", "name": "Value", "direction": "desc"}],
                limit=1)
    assert position_question(ranked, t) is None


def test_pseudo_table_has_disjoint_values_of_a_condition_attribute():
    t1 = small_table("t1")
    t2 = small_table("t2", cities=("c1", "c2", "c3"))
    t3 = small_table("t3", cities=("a1", "x2", "x3"))
    other_template = small_table("t4", cities=("d1", "d2", "d3"), template_key="other")
    s = spec([("City", ["a1"]), ("Year", ["2020"])])
    picks = {pseudo_relevant_table(s, t1, [t1, t2, t3], random.Random(seed)) for seed in range(10)}
    assert {(p.table_id, p.disjoint_attribute) for p in picks} == {("t2", "City")}
    assert {p.position for p in picks} == {"before", "after"}
    assert pseudo_relevant_table(s, t1, [t1, t3], random.Random(0)) is None  # t3 shares a1 and every year
    assert pseudo_relevant_table(s, t1, [t1], random.Random(0)) is None
    assert other_template.template_key != t1.template_key


def _questions() -> pd.DataFrame:
    rows = [("t1--q01", "t1", 1, "Value of a1 in 2020?", [["11"]], spec([("City", ["a1"]), ("Year", ["2020"])])),
            ("t1--q04", "t1", 4, "Max of a1?", [["24"]],
             spec([("City", ["a1"]), ("Year", ["2020", "2021"])], [{"kind": "aggregate", "function": "max"}])),
            ("t1--q14", "t1", 14, "Out of scope", [["a1"]], spec([("Year", ["2020"])]))]
    return pd.DataFrame([{"question_id": i, "table_id": t, "template_id": k, "question": text,
                          "answer_gt": format_gt(a), "answer_rows": json.dumps(a), "spec_json": json.dumps(s)}
                         for i, t, k, text, a, s in rows])


def test_question_items_make_b_su_and_m_items_with_the_answer_as_correct_option():
    tables = {"t1": small_table("t1"), "t2": small_table("t2", cities=("c1", "c2", "c3"))}
    items = question_items(_questions(), tables, seed=42)
    assert sorted(i["item_id"] for i in items) == [
        "b_tis--t1--q01", "b_tis--t1--q04", "m_tis--t1--q01", "m_tis--t1--q04", "su_tis--t1--q01", "su_tis--t1--q04"]
    answers = {"t1--q01": "{11}", "t1--q04": "{24}"}
    for i in items:
        right, wrong = (i["option_a"], i["option_b"]) if i["correct_option"] == "A" else (i["option_b"], i["option_a"])
        assert right == answers[i["source_question_id"]] and options_differ(right, wrong)
        assert (i["other_table_id"] == "t2") == (i["subset"] == "m_tis")
    by_subset = {i["subset"]: i for i in items if i["source_question_id"] == "t1--q04"}
    assert by_subset["su_tis"]["question"] == "What is the maximum of the data values in row 2 where Year is 2020 or 2021?"
    # the three subsets share the item's two options and the strategy that made the wrong one
    assert len({frozenset((i["option_a"], i["option_b"])) for i in by_subset.values()}) == 1
    assert len({i["distractor_strategy"] for i in by_subset.values()}) == 1
    assert question_items(_questions(), tables, seed=42) == items


def test_probe_items_ask_each_probe_on_each_content_variant_at_the_same_positions():
    items = probe_items({"t1": GRID}, seed=7)
    assert len(items) == 6 * 3
    by_kind: dict = {}
    for i in items:
        by_kind.setdefault(i["subset"], []).append(i)
    for kind, rows in by_kind.items():
        assert {r["content_variant"] for r in rows} == {"original", "letters", "numbers"}
        assert len({(r["target_row"], r["target_col"], r["wrong_row"], r["wrong_col"]) for r in rows}) == 1
        for r in rows:
            assert options_differ(r["option_a"], r["option_b"])
            assert (r["table_csv"] is None) == (r["content_variant"] == "original")
    assert probe_items({"t1": GRID}, seed=7) == items
    assert probe_items({"t1": GRID}, seed=8) != items


def _instances(templates: dict[str, int]) -> pd.DataFrame:
    rows = [(f"syn--d--{name}--v0001--r{i}", "d", name, 1) for name, n in templates.items() for i in range(n)]
    return pd.DataFrame(rows, columns=["table_id", "domain", "template_name", "variant_id"])


def test_chunks_hold_whole_templates_in_id_order_balanced():
    from generator_py.choice_items.items import _chunks, _in_id_order

    instances = _instances({"a": 7, "b": 30, "c": 3, "d": 12, "e": 9})
    ids = list(instances["table_id"]) + ["real--x", "real--y"]  # tables of no template: a chunk unit each
    chunks = _chunks(instances, ids, 4)
    assert sorted(t for c in chunks for t in c) == sorted(ids)
    template_of = dict(zip(instances["table_id"], instances["template_name"]))
    for name in "abcde":
        assert sum(any(template_of.get(t) == name for t in c) for c in chunks) == 1  # never split
    assert 3 <= len(chunks) <= 5
    assert _in_id_order(chunks)  # so the parts concatenate in the stored order without a sort


def test_interleaved_template_ids_are_seen_as_out_of_order():
    from generator_py.choice_items.items import _chunks, _in_id_order

    # two templates whose ids interleave in sorted order: chunks of whole templates cannot follow id order
    instances = pd.DataFrame([("t1", "d", "a", 1), ("t2", "d", "b", 1), ("t3", "d", "a", 1), ("t4", "d", "b", 1)],
                             columns=["table_id", "domain", "template_name", "variant_id"])
    chunks = _chunks(instances, ["t1", "t2", "t3", "t4"], 2)
    assert sorted(map(sorted, chunks)) == [["t1", "t3"], ["t2", "t4"]]
    assert not _in_id_order(chunks)
