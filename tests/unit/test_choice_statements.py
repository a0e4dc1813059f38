"""The statement form of the lookup items: sentences from the seeds' template language."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from generator_py.choice_items.items import question_items
from generator_py.choice_items.option_text import options_differ
from generator_py.choice_items.statements import StatementWriter, statement
from generator_py.questions.types import NLTemplateError
from generator_py.release.gt import format_gt

from support.choice_grids import small_table, spec

ATTRIBUTES = pd.DataFrame([
    {"domain": "demo", "code": "R", "kind": "hierarchical", "level": "1", "attribute_name": "Country", "spoken_name": ""},
    {"domain": "demo", "code": "R", "kind": "hierarchical", "level": "2", "attribute_name": "City", "spoken_name": ""},
    {"domain": "demo", "code": "Y", "kind": "independent", "level": "1", "attribute_name": "Year", "spoken_name": ""},
])
SUBJECT = "the number/numbers of_((visitors)) of__visitors in__$City__$Country in_$Year"


def _writer(text: str = SUBJECT, template_name: str = "*") -> StatementWriter:
    return StatementWriter(pd.DataFrame([{"domain": "demo", "template_name": template_name, "text": text}]), ATTRIBUTES)


def test_a_statement_names_the_conditions_and_states_the_values():
    w = _writer()
    one = w.sentences("demo", "visits", spec([("City", ["a1"]), ("Year", ["2020"])]), ["{11}", "{24}"])
    assert one == ["The number of visitors in a1 in 2020 is 11.", "The number of visitors in a1 in 2020 is 24."]
    many = w.sentences("demo", "visits", spec([("City", ["a1", "a2"]), ("Year", ["2020"])]), ["{11} || {32}"])
    assert many == ["The numbers of visitors in a1 or a2 in 2020 are 11 and 32."]
    # the most specific attribute of a hierarchy is named (simplifyNested), the Year left out when unasked
    assert w.subject("demo", "visits", spec([("Country", ["A"]), ("City", ["a1"])])) == "The number of visitors in a1"
    assert statement("The x", ["1", "2", "3"]) == "The x are 1, 2, and 3."


def test_options_that_are_not_one_value_per_row_have_no_statement():
    assert _writer().sentences("demo", "visits", spec([("City", ["a1"])]), ["{a1 | 11}"]) is None


def test_seed_problems_are_errors_naming_the_file_and_row():
    with pytest.raises(NLTemplateError, match="choice_statements.csv: no row for domain='other'"):
        _writer().subject("other", "visits", spec([("City", ["a1"])]))
    with pytest.raises(NLTemplateError, match="no placeholder shows the condition on \\$Year"):
        _writer("the number of visitors in__$City__$Country").subject("demo", "visits", spec([("Year", ["2020"])]))
    with pytest.raises(NLTemplateError, match="attribute \\$Town .* is not an attribute of this domain"):
        _writer("visitors in_$Town").subject("demo", "visits", spec([("City", ["a1"])]))
    with pytest.raises(NLTemplateError, match="line 2: a subject names conditions only, not \\$EXPR"):
        _writer("the $EXPR in_$City").subject("demo", "visits", spec([("City", ["a1"])]))
    with pytest.raises(NLTemplateError, match="line 3: a second row for domain='demo'"):
        StatementWriter(pd.DataFrame([{"domain": "demo", "template_name": "*", "text": SUBJECT}] * 2), ATTRIBUTES)
    with pytest.raises(ValueError, match="missing column\\(s\\) text"):
        StatementWriter(pd.DataFrame([{"domain": "demo", "template_name": "*"}]), ATTRIBUTES)


def test_lookup_items_also_come_as_statements_with_the_same_distractor():
    tables = {"t1": small_table("t1"), "t2": small_table("t2", cities=("c1", "c2", "c3"))}
    for t in tables.values():
        t.domain, t.template_name = "demo", "visits"
    rows = [("t1--q01", 1, [["11"]], spec([("City", ["a1"]), ("Year", ["2020"])])),
            ("t1--q04", 4, [["24"]], spec([("City", ["a1"]), ("Year", ["2020", "2021"])],
                                          [{"kind": "aggregate", "function": "max"}]))]
    questions = pd.DataFrame([{"question_id": i, "table_id": "t1", "template_id": k, "question": "?",
                               "answer_gt": format_gt(a), "answer_rows": json.dumps(a), "spec_json": json.dumps(s)}
                              for i, k, a, s in rows])
    items = {i["item_id"]: i for i in question_items(questions, tables, seed=42, statements=_writer())}
    said = items["b_tis--t1--q01--statement"]
    assert "b_tis--t1--q04--statement" not in items  # an aggregate is no lookup
    assert {i["option_form"] for k, i in items.items() if k != said["item_id"]} == {"answer"}
    assert said["option_form"] == "statement" and said["subset"] == "b_tis"
    plain = items["b_tis--t1--q01"]
    right = said["option_a"] if said["correct_option"] == "A" else said["option_b"]
    wrong = said["option_b"] if said["correct_option"] == "A" else said["option_a"]
    plain_wrong = plain["option_b"] if plain["correct_option"] == "A" else plain["option_a"]
    assert right == "The number of visitors in a1 in 2020 is 11."
    assert wrong == f"The number of visitors in a1 in 2020 is {plain_wrong.strip('{}')}." and options_differ(right, wrong)
    assert said["distractor_strategy"] == plain["distractor_strategy"]
