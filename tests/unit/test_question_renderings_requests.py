"""Prompts of questions that hide part of their table (the naming families) show the question's own view
(benchmark_questions.rendering_<format>) in every text format; the other questions keep their table's."""
from __future__ import annotations

import pandas as pd

from evaluation_py.dbt_glue.evaluation_inputs import eval_inputs_from_relations
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.running.requests import build_requests

QUESTIONS = pd.DataFrame({"question_id": ["t1--q01", "t1--header_name"], "table_id": ["t1", "t1"],
                          "source": ["synthetic", "synthetic"], "question": ["How many?", "Which label?"],
                          "answer_gt": ["{3}", "{Year}"]})
TABLES = pd.DataFrame({"table_id": ["t1"], "html": ["<table><th>Year</th></table>"], "csv": ['"Year"\n"3"\n'],
                       "markdown": ["| Year |\n| --- |\n| 3 |\n"]})
OWN = QUESTIONS.assign(rendering_html=[None, "<table><th></th></table>"], rendering_csv=[None, '""\n"3"\n'],
                       rendering_markdown=[None, "|  |\n| --- |\n| 3 |\n"])


def _prompts(questions):
    (spec,) = parse_eval_models([{"name": "m", "backend": "oracle", "formats": ["html", "csv", "markdown"]}])
    return {(r.question_id, r.table_format): " ".join(m["content"] for m in r.messages)
            for r in build_requests(spec, questions, TABLES, 42)}


def test_hiding_questions_show_their_own_view_in_every_format():
    prompts = _prompts(OWN)
    for fmt in ("html", "csv", "markdown"):
        assert OWN.at[1, f"rendering_{fmt}"] in prompts[("t1--header_name", fmt)]
        assert TABLES.at[0, fmt] not in prompts[("t1--header_name", fmt)]
        assert TABLES.at[0, fmt] in prompts[("t1--q01", fmt)]


def test_without_own_views_prompts_are_those_of_before():
    assert _prompts(QUESTIONS) == _prompts(OWN.assign(rendering_html=None, rendering_csv=None,
                                                      rendering_markdown=None))
    assert TABLES.at[0, "csv"] in _prompts(QUESTIONS)[("t1--header_name", "csv")]


def test_eval_inputs_read_the_own_views_where_the_mart_has_them():
    entry = repr([{"name": "m", "backend": "oracle", "formats": ["csv"]}])
    with_own = eval_inputs_from_relations(OWN, TABLES, entry, "42").requests
    plain = eval_inputs_from_relations(QUESTIONS, TABLES, entry, "42").requests
    changed = {a.question_id for a, b in zip(with_own, plain) if a.messages != b.messages}
    assert changed == {"t1--header_name"}


def test_hiding_questions_are_not_asked_where_the_whole_table_is_seen():
    # pot's program reads the table's own renderings (and an image shows the whole table): the blanked
    # label would be in plain sight, so those requests are not made; direct still asks it.
    (spec,) = parse_eval_models([{"name": "m", "backend": "oracle", "formats": ["csv"], "modes": ["direct", "pot"],
                                  "sandbox": "rlimits"}])
    asked = {(r.question_id, r.inference_mode) for r in build_requests(spec, OWN, TABLES, 42)}
    assert asked == {("t1--q01", "direct"), ("t1--header_name", "direct"), ("t1--q01", "pot")}
    plain = {(r.question_id, r.inference_mode) for r in build_requests(spec, QUESTIONS, TABLES, 42)}
    assert ("t1--header_name", "pot") in plain
