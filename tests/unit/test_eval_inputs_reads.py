"""The evaluation models read from the marts only the rows their requests ask (the questions chosen, the
questions a one-shot example can be, their tables), and make exactly the requests every row would make."""
from __future__ import annotations

import duckdb
import pandas as pd
import pytest

from evaluation_py.dbt_glue.evaluation_inputs import eval_inputs, eval_inputs_from_relations
from evaluation_py.prompting.one_shot import example_candidates, one_shot_examples

N = 30
TABLES = pd.DataFrame({"table_id": [f"t{i:02d}" for i in range(N)],
                       "html": [f"<table><td>cell{i}</td></table>" for i in range(N)],
                       "csv": [f"cell{i}\n" for i in range(N)], "markdown": [f"| cell{i} |\n" for i in range(N)],
                       "n_cells": [4 + i for i in range(N)]})
_ORIGINALS = pd.DataFrame({
    "question_id": [f"t{i % N:02d}--q{i:03d}" for i in range(4 * N)],
    "table_id": [f"t{i % N:02d}" for i in range(4 * N)],
    "source": ["real" if i >= 3 * N else "synthetic" for i in range(4 * N)],
    "template_id": [1 + i % 5 if i < 3 * N else None for i in range(4 * N)],
    "family": [None if i < 3 * N else "lookup" for i in range(4 * N)],
    "question": [f"Question {i}?" for i in range(4 * N)], "answer_gt": [f"{{{i}}}" for i in range(4 * N)],
    "variant": "original", "original_question_id": None})
_TWINS = _ORIGINALS.head(N).assign(question_id=lambda q: q["question_id"] + "-obf", variant="obfuscated",
                                   original_question_id=_ORIGINALS["question_id"].head(N),
                                   question=lambda q: "Obfuscated " + q["question"])
QUESTIONS = pd.concat([_ORIGINALS, _TWINS], ignore_index=True).assign(
    output_instruction=None, rendering_html=None, rendering_csv=None, rendering_markdown=None)
ENTRIES = [{"name": "sampled", "backend": "oracle", "sample": 7},
           {"name": "one_shot", "backend": "oracle", "shots": 1, "sample": 5, "formats": ["html", "csv"]},
           {"name": "per_family", "backend": "header_match", "sample_per_family": 2, "max_table_cells": 20},
           {"name": "twins", "backend": "oracle", "sample": 4, "variants": ["original", "obfuscated"]}]


@pytest.fixture
def marts(tmp_path):
    con = duckdb.connect(str(tmp_path / "marts.duckdb"))
    con.register("q", QUESTIONS)
    con.register("t", TABLES)
    con.execute("create table benchmark_questions as select * from q; create table benchmark_tables as select * from t")
    yield con.table("benchmark_questions"), con.table("benchmark_tables")
    con.close()


def test_the_requests_read_from_the_marts_are_those_of_every_row(marts):
    questions, tables = marts
    from_marts = eval_inputs_from_relations(questions, tables, repr(ENTRIES), "42").requests
    from_every_row = eval_inputs(QUESTIONS, TABLES, repr(ENTRIES), "42").requests
    assert {r.model_name for r in from_marts} == {e["name"] for e in ENTRIES}
    assert any(r.question_id.endswith("-obf") for r in from_marts)
    assert any(len(r.messages) == 4 for r in from_marts)  # one-shot prompts: the example's turn and its answer
    assert ([(r.cache_key, r.messages) for r in from_marts]
            == [(r.cache_key, r.messages) for r in from_every_row])


def test_only_the_asked_tables_are_read(marts):
    questions, tables = marts
    entries = repr([{"name": "few", "backend": "oracle", "sample": 3}])
    inputs = eval_inputs_from_relations(questions, tables, entries, "42")
    asked = {r.table_id for r in inputs.requests}
    assert len(asked) == 3
    for table_id in TABLES["table_id"]:
        if table_id in asked:
            assert inputs.benchmark.table_texts(table_id)["csv"] == TABLES.set_index("table_id").at[table_id, "csv"]
        else:
            with pytest.raises(KeyError, match=f"table '{table_id}' has no renderings"):
                inputs.benchmark.table_texts(table_id)


def test_a_pool_cut_to_the_example_candidates_gives_every_question_its_example():
    pool = QUESTIONS[QUESTIONS["variant"] == "original"]
    for seed in (42, 7, 1):
        candidates = example_candidates(pool, seed)
        assert len(candidates) < len(pool) // 3
        assert all(pool.set_index("question_id").at[q, "table_id"] == t for q, t in candidates.items())
        chosen = pool.sample(12, random_state=seed)
        cut = pool[pool["question_id"].isin(set(candidates) | set(chosen["question_id"]))]
        assert one_shot_examples(chosen, cut, seed) == one_shot_examples(chosen, pool, seed)
        assert len(one_shot_examples(chosen, pool, seed)) == 12
