"""Entry key `shots`: a one-shot prompt shows another table's question of the same template with its answer
(deterministic, never the question's table), and analysis_scores_by_shots puts 0- and 1-shot entries side by side."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.analysis.shots import scores_by_shots, shots_table
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.dbt_glue.evaluation_inputs import entry_metadata
from evaluation_py.prompting.one_shot import one_shot_examples
from evaluation_py.running.requests import build_requests

N = 12
TABLES = pd.DataFrame({"table_id": [f"t{i:02d}" for i in range(N)],
                       "html": [f"<table><td>cell{i}</td></table>" for i in range(N)]})
QUESTIONS = pd.DataFrame({
    "question_id": [f"t{i % N:02d}--q{i:02d}" for i in range(3 * N)],
    "table_id": [f"t{i % N:02d}" for i in range(3 * N)],
    "source": ["real" if i >= 2 * N else "synthetic" for i in range(3 * N)],
    "template_id": [1 + i // N if i < 2 * N else None for i in range(3 * N)],
    "family": None, "question": [f"Question {i}?" for i in range(3 * N)],
    "answer_gt": [f"{{{i}}}" for i in range(3 * N)]})


def _requests(entry, questions=QUESTIONS, seed=42):
    (spec,) = parse_eval_models([entry])
    return {r.question_id: r.messages for r in build_requests(spec, questions, TABLES, seed)}


def test_the_example_is_another_tables_question_of_the_same_template_with_its_answer():
    one = _requests({"name": "m1", "backend": "oracle", "shots": 1})
    zero = _requests({"name": "m0", "backend": "oracle"})
    by_id = QUESTIONS.set_index("question_id")
    for qid, messages in one.items():
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
        assert messages[-1] == zero[qid][-1] and messages[0] == zero[qid][0]
        example = next(e for e in by_id.index if f"Question: {by_id.at[e, 'question']}" in messages[1]["content"]
                       and by_id.at[e, "question"] != by_id.at[qid, "question"])
        assert by_id.at[example, "table_id"] != by_id.at[qid, "table_id"]
        same_kind = (by_id.at[example, "template_id"] == by_id.at[qid, "template_id"]
                     if pd.notna(by_id.at[qid, "template_id"]) else by_id.at[example, "source"] == "real")
        assert same_kind, (qid, example)
        assert messages[2]["content"] == by_id.at[example, "answer_gt"].strip("{}")
        assert TABLES.set_index("table_id").at[by_id.at[example, "table_id"], "html"] in messages[1]["content"]
    # deterministic, and independent of which questions the entry samples
    assert one == _requests({"name": "m1", "backend": "oracle", "shots": 1})
    sampled = _requests({"name": "m1", "backend": "oracle", "shots": 1, "sample": 5})
    assert all(sampled[q] == one[q] for q in sampled)
    assert one_shot_examples(QUESTIONS, QUESTIONS, 42) != one_shot_examples(QUESTIONS, QUESTIONS, 7)


def test_a_question_alone_of_its_kind_on_other_tables_is_asked_without_an_example():
    lone = QUESTIONS.assign(template_id=[1] * N + [2] * N + [3] + [None] * (N - 1))  # template 3: one question
    examples = one_shot_examples(lone, lone, 42)
    assert "t00--q24" not in examples and len(examples) == 3 * N - 1
    one = _requests({"name": "m1", "backend": "oracle", "shots": 1}, lone)
    assert [m["role"] for m in one["t00--q24"]] == ["system", "user"]


@pytest.mark.parametrize("entry, message", [
    ({"shots": 2}, r"key `shots` 2 must be 0 or 1"),
    ({"shots": True}, r"key `shots` True must be 0 or 1"),
    ({"shots": 1, "modes": ["direct", "tcot"]}, r"key `shots: 1` is for the direct mode on text formats"),
])
def test_a_bad_shots_value_names_the_entry_and_the_key(entry, message):
    with pytest.raises(ValueError, match=r"eval_models entry 1 \(.*'m'.*\): " + message):
        parse_eval_models([{"name": "m", "backend": "oracle", **entry}])


def test_recall_by_shots_side_by_side():
    entries = [{"name": "llama-0", "backend": "oracle", "model": "llama8b"},
               {"name": "llama-1", "backend": "oracle", "model": "llama8b", "shots": 1}]
    metadata = entry_metadata(repr(entries), "'this_build'")
    rows = [(name, "llama8b", "html", "direct", "strict", metric, f"q{i}", v, False)
            for name, values in (("llama-0", [0.0, 1.0]), ("llama-1", [1.0, 1.0]))
            for metric in ("recall", "f1") for i, v in enumerate(values)]
    scores = pd.DataFrame(rows, columns=["model_name", "model", "table_format", "inference_mode", "scoring_mode",
                                         "metric", "question_id", "value", "left_out"])
    out = scores_by_shots(scores, metadata)
    recall = out[out["metric"] == "recall"].set_index("shots")
    assert recall.at[0, "value"] == 0.5 and recall.at[1, "value"] == 1.0 and (recall["n"] == 2).all()
    wide = shots_table(out).iloc[0]
    assert (wide["model"], wide["0-shot recall"], wide["1-shot recall"]) == ("llama8b", 0.5, 1.0)
    assert wide["entries"] == "llama-0, llama-1"
    zero_only = entry_metadata(repr(entries[:1]), "'this_build'")
    assert scores_by_shots(scores, zero_only).empty


def test_the_report_shows_table_viii(tmp_path):
    from evaluation_py.analysis.report_build import report_sections

    entries = [{"name": "a0", "backend": "oracle", "model": "a"}, {"name": "a1", "backend": "oracle", "model": "a",
                                                                    "shots": 1}]
    scores = pd.DataFrame([(n, "a", "openai", "html", "direct", "strict", metric, "q1", "t1", v, False)
                           for n, v in (("a0", 0.25), ("a1", 0.75)) for metric in ("recall", "f1", "cc")],
                          columns=["model_name", "model", "backend", "table_format", "inference_mode", "scoring_mode",
                                   "metric", "question_id", "table_id", "value", "left_out"])
    by_shots = scores_by_shots(scores, entry_metadata(repr(entries), "'this_build'"))
    sections, _ = report_sections({"by_shots": by_shots}, scores, tmp_path)
    (section,) = [s for s in sections if s.key == "shots"]
    assert section.tables[0].frame[["0-shot recall", "1-shot recall"]].values.tolist() == [[0.25, 0.75]]
    _, unanswered = report_sections({"by_shots": by_shots.iloc[:0]}, scores, tmp_path)
    assert "Does a worked example help?" in [u.title for u in unanswered]


def test_the_evaluation_reads_what_the_examples_are_chosen_by():
    from evaluation_py.dbt_glue.evaluation_inputs import eval_inputs_from_relations

    entry = repr([{"name": "m1", "backend": "oracle", "shots": 1}])
    tables = TABLES.assign(csv="a\n", markdown="| a |\n")  # the renderings eval inputs read
    requests = eval_inputs_from_relations(QUESTIONS, tables, entry, "42").requests
    direct = _requests({"name": "m1", "backend": "oracle", "shots": 1})
    assert {r.question_id: r.messages for r in requests} == direct
