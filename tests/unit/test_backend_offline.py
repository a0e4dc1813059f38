"""Backends without a model server: replay, oracle, vllm (its error without vLLM, its mapping with a stub)."""
from __future__ import annotations

import gzip
import json
import sys
import types

import pandas as pd
import pytest

import evaluation_py.backends as backends
from evaluation_py.backends import BenchmarkLookup
from evaluation_py.backends import get_backend
from evaluation_py.backends.oracle_backend import gt_to_answer
from evaluation_py.testing.requests import make_requests


def run(be, reqs):
    got = []
    be.run(reqs, got.append)
    return got


def test_registry_has_all_backends():
    assert {"openai", "vllm", "replay", "oracle"} <= set(backends.backend_names())


# ------------------------------------------------------------------ replay
def test_replay_answers_by_question_id(tmp_path):
    path = tmp_path / "resp.jsonl.gz"
    lines = [{"qap_id": "q0", "response": "a || 1", "model": "x"}, {"id": "q1", "response": None},
             {"qap_id": 2, "response": 34}]
    with gzip.open(path, "wt") as f:
        f.write("\n".join(json.dumps(x) for x in lines) + "\n\n")
    reqs = make_requests(4, backend="replay")
    got = {p.question_id: p for p in run(get_backend("replay", {"path": str(path)}), reqs)}
    assert (got["q0"].response, got["q0"].error_kind) == ("a || 1", None)
    assert (got["q1"].response, got["q1"].error_kind) == (None, "null_response")
    assert (got["q2"].response, got["q2"].error_kind) == (None, "missing")
    assert (got["q3"].response, got["q3"].error_kind) == (None, "missing")
    assert get_backend("replay", {"path": str(path)}).responses["2"] == "34"


@pytest.mark.parametrize("content, message", [
    ('{"qap_id": "a", "response": "x"}\n{"qap_id": "b", "resp\n', r"bad\.jsonl:2: malformed JSON"),
    ('{"qap_id": "a", "response": "x"}\n\n{"response": "y"}\n', r"bad\.jsonl:3: no 'qap_id'"),
    ('{"qap_id": "a"}\n', r"bad\.jsonl:1: no 'response'"),
    ('{"qap_id": "a", "response": "x"}\n{"qap_id": "a", "response": "y"}\n',
     r"bad\.jsonl:2: id 'a' has another response on line 1"),
    ('[1, 2]\n', r"bad\.jsonl:1: expected a JSON object"),
], ids=["malformed", "no-id", "no-response", "two-responses", "not-an-object"])
def test_replay_errors_name_file_and_line(tmp_path, content, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    with pytest.raises(ValueError, match=r"replay backend: .*" + message):
        get_backend("replay", {"path": str(bad)})


def test_replay_needs_an_existing_path(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        get_backend("replay", {"path": str(tmp_path / "nope.jsonl")})
    with pytest.raises(ValueError, match="path"):
        get_backend("replay", {})


# ------------------------------------------------------------------ oracle
GTS = ["{a | 1} || {b | 2.5}", "{Female | 40 | 40} || {Male | 86 | 86}", "{Yes}", "{34}", "12.5",
       "{Doha | 1250}", "{x | 3} || {y}"]


def test_oracle_answer_format():
    assert gt_to_answer("{a | 1} || {b | 2.5}") == "a || 1 || b || 2.5"
    assert gt_to_answer("{Female | 40 | 40} || {Male | 86 | 86}") == "Female || 40 || 40 || Male || 86 || 86"
    assert gt_to_answer("{Yes}") == "Yes" and gt_to_answer("12.5") == "12.5" and gt_to_answer("") == ""


def test_oracle_backend_scores_one():
    from evaluation_py.scoring import scores as scoring
    reqs = make_requests(len(GTS), backend="oracle")
    gt_of = {r.question_id: gt for r, gt in zip(reqs, GTS)}
    benchmark = BenchmarkLookup(pd.DataFrame({"question_id": list(gt_of), "answer_gt": list(gt_of.values())}))
    got = {p.cache_key: p for p in run(get_backend("oracle", {}, benchmark), reqs)}
    for r in reqs:
        p = got[r.cache_key]
        assert p.error_kind is None
        for mode in scoring.SCORING_MODES:
            s = scoring.score_one(p.response, gt_of[r.question_id], mode)
            assert (s["precision"], s["recall"], s["f1"], s["cc"], s["left_out"]) == (1.0, 1.0, 1.0, 1, False), (
                mode, gt_of[r.question_id])


def test_oracle_answers_as_the_question_instructs_and_its_key_changes_only_with_an_instruction():
    reqs = make_requests(3, backend="oracle")
    ids = [r.question_id for r in reqs]
    benchmark = BenchmarkLookup(pd.DataFrame({"question_id": ids, "answer_gt": ["{158} || {14.5}", "{Oslo}", "{3}"],
                                              "output_instruction": ['{"kind": "json_array"}', '{"kind": "upper_case"}',
                                                                     None]}))
    got = {p.question_id: p.response for p in run(get_backend("oracle", {}, benchmark), reqs)}
    assert [got[q] for q in ids] == ["[158, 14.5]", "OSLO", "3"]
    fields = [benchmark.fields(q, "t", ("answer_gt", "output_instruction")) for q in ids]
    assert fields[1] == {"answer_gt": "{Oslo}", "output_instruction": '{"kind": "upper_case"}'}
    assert fields[2] == {"answer_gt": "{3}"}  # no instruction: the key a question had before the field


def test_oracle_needs_the_benchmark_and_requests_carry_none_of_it():
    from dataclasses import fields

    from evaluation_py.backends.base import PredictionRequest
    with pytest.raises(ValueError, match="'oracle' reads answer_gt, output_instruction from the benchmark"):
        get_backend("oracle", {})
    assert not {"answer_gt", "table_html", "question"} & {f.name for f in fields(PredictionRequest)}
    lookup = BenchmarkLookup(pd.DataFrame({"question_id": ["q1"], "answer_gt": ["{3}"]}))
    with pytest.raises(KeyError, match="question 'q9' has no answer_gt"):
        lookup.answer_gt("q9")


# ------------------------------------------------------------------ vllm
def test_vllm_missing_gives_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm -> ImportError
    with pytest.raises(ImportError, match=r"pip install -e '\.\[vllm\]'"):
        get_backend("vllm", {"model": "/models/x"})


class _Logprob:
    def __init__(self, logprob, token):
        self.logprob, self.decoded_token, self.rank = logprob, token, 1


def _stub_vllm(calls):
    mod = types.ModuleType("vllm")

    class SamplingParams:
        def __init__(self, **kw):
            self.kw = kw

    class LLM:
        def __init__(self, **kw):
            calls.append(("LLM", kw))

        def chat(self, conversations, sampling_params, use_tqdm=True):
            calls.append(("chat", conversations, sampling_params))
            outs = []
            for conv in conversations:
                text = "V " + conv[-1]["content"]
                comp = types.SimpleNamespace(text=text, token_ids=[7, 8],
                                             logprobs=[{7: _Logprob(-0.1, "V"), 9: _Logprob(-2.5, "W")}])
                outs.append(types.SimpleNamespace(prompt_token_ids=[1, 2, 3], outputs=[comp]))
            return outs

    mod.LLM, mod.SamplingParams = LLM, SamplingParams
    return mod


def test_vllm_one_chat_call_and_mapping(monkeypatch):
    calls = []
    monkeypatch.setitem(sys.modules, "vllm", _stub_vllm(calls))
    be = get_backend("vllm", {"model": "/models/x", "tensor_parallel_size": 2, "max_model_len": 8192,
                              "params": {"logprobs": True, "top_logprobs": 2}})
    reqs = make_requests(9, n_tables=3, backend="vllm")
    got = run(be, reqs)
    assert calls[0] == ("LLM", {"model": "/models/x", "tensor_parallel_size": 2, "gpu_memory_utilization": 0.9,
                                "enable_prefix_caching": True, "max_model_len": 8192})
    chats = [c for c in calls if c[0] == "chat"]
    assert len(chats) == 1 and len(chats[0][1]) == 9  # one call with every prompt
    assert [c[-1]["content"] for c in chats[0][1]][:3] == ["q0", "q3", "q6"]  # grouped by table
    assert chats[0][2].kw == {"temperature": 0.0, "max_tokens": 256, "logprobs": 2}
    assert len(got) == 9
    for p in got:
        assert p.response == "V " + p.question_id and p.prompt_tokens == 3 and p.completion_tokens == 2
        lp = json.loads(p.logprobs_json)
        assert lp["token"] == "V" and [t["token"] for t in lp["top_logprobs"]] == ["V", "W"]


def test_oracle_scores_one_on_malformed_release_gts():
    from evaluation_py.scoring.scores import score_one

    for gt in ("{-14597)", "{148304} || 1{49616}", "{Professionals} || [Craft And Related Trades Workers} || {x}"):
        for mode in ("strict", "paper"):
            assert score_one(gt_to_answer(gt), gt, mode)["f1"] == 1.0, (mode, gt)



# ------------------------------------------------------------------ replay files tied to the benchmark
def _benchmark():
    import pandas as pd

    return pd.DataFrame({"question_id": ["q1", "q2", "q3"], "question": ["How many?", "Which  one?", "Who?"],
                         "answer_gt": ["{3}", "{a | 1}", "{b}"]})


def _file(tmp_path, lines):
    from evaluation_py.backends.replay_backend import read_responses

    path = tmp_path / "resp.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return read_responses(path)


def test_replay_file_of_another_benchmark_fails_naming_the_first_mismatches(tmp_path):
    from evaluation_py.backends.replay_backend import check_against_benchmark

    f = _file(tmp_path, [{"qap_id": "q1", "response": "3", "gt": "{3}"},
                         {"qap_id": "q2", "response": "a", "gt": "{c | 2}"},
                         {"qap_id": "q3", "response": "b", "question": "Where?"}])
    with pytest.raises(ValueError) as info:
        check_against_benchmark(f, _benchmark(), "gemma")
    msg = str(info.value)
    assert "replay model 'gemma'" in msg and str(tmp_path / "resp.jsonl") in msg and "2 line(s) disagree" in msg
    assert "line 2 id 'q2': gt '{c | 2}' in the file, '{a | 1}' in the benchmark" in msg
    assert "line 3 id 'q3': question 'Where?'" in msg


def test_replay_file_matching_the_benchmark_reports_unknown_ids_and_repeats(tmp_path):
    from evaluation_py.backends.replay_backend import check_against_benchmark

    f = _file(tmp_path, [{"qap_id": "q1", "response": "3", "gt": " {3} "},
                         {"qap_id": "q2", "response": "a", "question": "Which one?"},  # whitespace runs aside
                         {"qap_id": "q2", "response": "a", "question": "Which one?"},
                         {"qap_id": "zz", "response": "x", "gt": "{x}"}])
    note = check_against_benchmark(f, _benchmark(), "m")
    assert "1 id(s) not in the benchmark (first: 'zz')" in note and "1 repeated identical line(s)" in note
    clean = _file(tmp_path, [{"qap_id": "q1", "response": "3"}])
    assert check_against_benchmark(clean, _benchmark()) == ""


def test_header_match_answers_from_the_view_its_question_shows():
    from generator_py.grid.cells import Cell, TableGrid
    from generator_py.render.grid_changes import apply_change
    from generator_py.render.registry import render

    grid = TableGrid((Cell(1, 1, 1, 1, "corner", ""), Cell(1, 2, 1, 1, "column_header", "2020"),
                      Cell(1, 3, 1, 1, "column_header", "2021"), Cell(2, 1, 1, 1, "row_header", "Fire"),
                      Cell(2, 2, 1, 1, "data", "10"), Cell(2, 3, 1, 1, "data", "20")), 1, 1)
    paths = {(2, 2): (("Fire",), ("2020",)), (2, 3): (("Fire",), ("2021",))}
    view = apply_change(grid, {"kind": "set_value", "row_path": ["Fire"], "col_path": ["2021"], "text": "-7"}, paths)
    questions = pd.DataFrame({"question_id": ["q1", "q2"], "table_id": ["t", "t"],
                              "question": ["What is the value for Fire in 2021?"] * 2,
                              "rendering_html": [render(view, "html"), None]})
    lookup = BenchmarkLookup(questions, pd.DataFrame({"table_id": ["t"], "html": [render(grid, "html")]}))
    assert lookup.fields("q1", "t", ("table_html",)) == {"table_html": render(view, "html")}
    assert lookup.question_table_html("q2", "t") == render(grid, "html")
    from dataclasses import replace
    reqs = [replace(r, question_id=q, table_id="t") for r, q in zip(make_requests(2, backend="header_match"),
                                                                     ("q1", "q2"))]
    got = {p.question_id: p.response for p in run(get_backend("header_match", {}, lookup), reqs)}
    assert got == {"q1": "-7", "q2": "20"}
