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


def _rendered(grid):
    from generator_py.render.registry import render

    return {name: render(grid, name) for name in ("html", "csv", "markdown")}


def test_own_view_questions_run_code_on_their_view_and_skip_the_image(tmp_path):
    """A code mode asks a question with its own view: its prompt's structure and its program's inputs are the
    view's (the blanked label is nowhere in them); the image, drawn from the whole table, does not ask it."""
    from generator_py.grid.cells import Cell, TableGrid
    from generator_py.render.question_grid import question_grid
    from evaluation_py.backends.benchmark import BenchmarkLookup
    from evaluation_py.modes.outcomes import program_inputs

    grid = TableGrid((Cell(1, 1, 1, 1, "corner", ""), Cell(1, 2, 1, 1, "column_header", "Sunshine"),
                      Cell(2, 1, 1, 1, "row_header", "Doha"), Cell(2, 2, 1, 1, "data", "31")),
                     header_rows=1, header_columns=1)
    table, view = _rendered(grid), _rendered(question_grid(grid, blank_cell=(1, 2)))
    tables = pd.DataFrame([{"table_id": "t1", **table}])
    questions = QUESTIONS.assign(**{f"rendering_{f}": [None, view[f]] for f in view})
    (spec,) = parse_eval_models([{"name": "m", "backend": "oracle", "formats": ["csv"], "modes": ["direct", "pot"],
                                  "sandbox": "rlimits"}])
    requests = build_requests(spec, questions, tables, 42)
    assert {(r.question_id, r.inference_mode) for r in requests} == {
        (q, m) for q in ("t1--q01", "t1--header_name") for m in ("direct", "pot")}
    prompt = {(r.question_id, r.inference_mode): " ".join(m["content"] for m in r.messages) for r in requests}
    assert "Sunshine" in prompt[("t1--q01", "pot")] and "Sunshine" not in prompt[("t1--header_name", "pot")]
    # the program's inputs: the view, from the lookup the runs read and from the loaders eval_predictions uses
    lookup = BenchmarkLookup(questions, tables)
    inputs = program_inputs(tables, questions[["question_id", "rendering_html", "rendering_csv", "rendering_markdown"]])
    for read in (lookup.table_texts, inputs):
        assert read("t1", "t1--header_name")["csv"] == view["csv"] and "Sunshine" not in read("t1", "t1--header_name")["html"]
        assert read("t1", "t1--q01")["csv"] == table["csv"] == read("t1")["csv"]
    # the image shows the whole table: a question with its own view is not asked on it
    png = tmp_path / "t1.png"
    png.write_bytes(b"png")
    with_image = tables.assign(image_path=[str(png)], image_sha256=["0" * 64])
    (vision,) = parse_eval_models([{"name": "v", "backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1",
                                    "formats": ["image"]}])
    assert {r.question_id for r in build_requests(vision, questions, with_image, 42)} == {"t1--q01"}
