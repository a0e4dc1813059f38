"""`eval_models` entries: unknown keys, required URLs, parameter types, and cache keys that cover each answer."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from evaluation_py.backends import base
from evaluation_py.configuration.model_specs import COMMON_KEYS, parse_eval_models
from evaluation_py.running.requests import build_requests
from generator_py.dbt_glue.vars import parse_config

URL = "http://127.0.0.1:8000/v1"


def error_of(entry: dict) -> str:
    with pytest.raises(ValueError) as info:
        parse_eval_models([{"name": "ok", "backend": "oracle"}, entry])
    return str(info.value)


@pytest.mark.parametrize("entry, key, closest", [
    ({"name": "m", "backend": "openai", "model": "x", "base_ur": URL}, "base_ur", "base_url"),
    ({"name": "m", "backend": "oracle", "smaple": 10}, "smaple", "sample"),
    ({"name": "m", "backend": "replay", "paht": "r.jsonl"}, "paht", "path"),
    ({"name": "m", "backend": "openai", "model": "x", "base_url": URL, "paramz": {}}, "paramz", "params"),
])
def test_unknown_key_names_entry_key_and_closest_known_key(entry, key, closest):
    msg = error_of(entry)
    assert "eval_models entry 2" in msg and repr(entry) in msg
    assert f"unknown key {key!r} for backend {entry['backend']!r}; did you mean {closest!r}?" in msg


def test_unknown_key_without_a_close_one_lists_the_known_keys():
    msg = error_of({"name": "m", "backend": "oracle", "zzzz": 1})
    assert "unknown key 'zzzz'" in msg and "known keys: backend, base_model, choice_items, families, family, finetune_set, formats, max_table_cells, max_turns, model, modes, name, params, params_b, release_date, sample, sample_per_family, sandbox, shots, sources, splits" in msg


def test_a_key_of_another_backend_is_unknown():
    assert "unknown key 'tensor_parallel_size' for backend 'openai'" in error_of(
        {"name": "m", "backend": "openai", "model": "x", "base_url": URL, "tensor_parallel_size": 2})


def test_every_backend_declares_its_entry_keys():
    import evaluation_py.backends  # noqa: F401

    for name in base.backend_names():
        cls = base.backend_class(name)
        assert isinstance(cls.entry_keys, frozenset), name
        assert not cls.entry_keys & COMMON_KEYS, name
        assert cls.answer_keys is None or cls.answer_keys <= cls.entry_keys, name


def test_openai_needs_a_url_and_never_falls_back(monkeypatch):
    msg = error_of({"name": "m", "backend": "openai", "model": "x"})
    assert "'base_url' is required" in msg and "no default URL" in msg
    monkeypatch.delenv("MY_URL", raising=False)
    entry = {"name": "m", "backend": "openai", "model": "x", "base_url_env": "MY_URL"}
    assert "environment variable 'MY_URL' (base_url_env) is not set" in error_of(entry)
    monkeypatch.setenv("MY_URL", URL)
    (spec,) = parse_eval_models([entry])
    from evaluation_py.backends.openai_backend import OpenAIBackend

    assert OpenAIBackend(spec.backend_config).base_urls == [URL]
    with pytest.raises(ValueError, match="'base_url' is required"):
        OpenAIBackend({"model": "x"})
    assert "must be a URL" in error_of({"name": "m", "backend": "openai", "model": "x", "base_url": []})


@pytest.mark.parametrize("params, message", [
    ({"temperature": "hot"}, "params.temperature must be a number >= 0, got 'hot'"),
    ({"temperature": -1}, "params.temperature must be a number >= 0"),
    ({"max_tokens": 7.5}, "params.max_tokens must be an integer >= 1"),
    ({"max_tokens": True}, "params.max_tokens must be an integer"),
    ({"logprobs": "yes"}, "params.logprobs must be true or false"),
    ({"stop": 3}, "params.stop must be a string or a list of strings"),
])
def test_decoding_parameters_of_the_wrong_type_are_rejected(params, message):
    msg = error_of({"name": "m", "backend": "openai", "model": "x", "base_url": URL, "params": params})
    assert "eval_models entry 2" in msg and message in msg


def test_server_specific_parameters_pass_and_backend_numbers_are_checked():
    (spec,) = parse_eval_models([{"name": "m", "backend": "openai", "model": "x", "base_url": URL,
                                  "params": {"temperature": 0.7, "top_k": 5, "guided_choice": ["a"]}}])
    assert spec.params["guided_choice"] == ["a"]
    assert "'concurrency' must be an integer >= 1, got 0" in error_of(
        {"name": "m", "backend": "openai", "model": "x", "base_url": URL, "concurrency": 0})
    assert "system_role must be true or false, got 'false'" in error_of(
        {"name": "m", "backend": "oracle", "system_role": "false"})


# ------------------------------------------------------------------ the var as a dbt model receives it
# dbt hands a Python model its vars rendered as text: these are the cases the e2e builds once ran one
# build each for (tests/e2e/test_build_guards.py keeps one, proving the build shows the message).
@pytest.mark.parametrize("bad_entry, message", [
    ({"name": "mystery", "backend": "no_such_backend"}, "unknown backend 'no_such_backend' (registered: header_match, "),
    ({"backend": "oracle"}, "missing model name (key `name`)"),
    ("just-a-string", "must be a mapping with at least name and backend"),
    ({"name": "oracle", "backend": "oracle"}, "model name 'oracle' is used twice"),
    ({"name": "m", "backend": "openai", "model": "x", "base_url": "http://127.0.0.1:9/v1",
      "params": {"temperature": "hot"}}, "params.temperature must be a number >= 0, got 'hot'"),
    ({"name": "m", "backend": "oracle", "formats": ["png"]}, "formats ['png'] must be among"),
    ({"name": "m", "backend": "oracle", "sources": ["fake"]}, "sources ['fake'] must be among synthetic, real"),
    ({"name": "m", "backend": "oracle", "sample": 0}, "sample 0 must be a positive number of questions"),
    ({"name": "m", "backend": "oracle", "params": [1]}, "params must be a mapping of decoding parameters"),
    ({"name": "m", "backend": "openai", "base_url": URL}, "backend 'openai' needs a model id (key `model`)"),
], ids=["unknown-backend", "missing-name", "not-a-mapping", "name-twice", "temperature-text", "format",
        "source", "sample-zero", "params-list", "no-model"])
def test_rendered_eval_models_entry_fails_naming_the_entry(bad_entry, message):
    rendered = str([{"name": "oracle", "backend": "oracle"}, bad_entry])  # what dbt.config.get gives
    with pytest.raises(ValueError) as info:
        parse_eval_models(parse_config(rendered))
    msg = str(info.value)
    assert msg.startswith(f"eval_models entry 2 ({bad_entry!r}): ") and message in msg, msg


@pytest.mark.parametrize("rendered", ["[]", "{'name': 'm', 'backend': 'oracle'}", "oracle"])
def test_eval_models_must_be_a_non_empty_list(rendered):
    with pytest.raises(ValueError, match="var eval_models must be a non-empty list of model entries"):
        parse_eval_models(parse_config(rendered))


def test_rendered_eval_models_pass():
    assert [s.backend for s in parse_eval_models(parse_config("None"))]  # unset: the default baselines
    rendered = str([{"name": "o", "backend": "oracle", "formats": ["csv"], "sample": 3, "sources": ["synthetic"]}])
    (spec,) = parse_eval_models(parse_config(rendered))
    assert (spec.name, spec.backend, spec.formats, spec.sample, spec.sources) == ("o", "oracle", ("csv",), 3,
                                                                                    ("synthetic",))


# ------------------------------------------------------------------ cache keys
QUESTIONS = pd.DataFrame({"question_id": ["q1", "q2"], "table_id": ["t1", "t1"], "source": ["synthetic"] * 2,
                          "question": ["How many?", "Which?"], "answer_gt": ["{3}", "{a}"]})
TABLES = pd.DataFrame({"table_id": ["t1"], "html": ["<table><tr><td>3</td></tr></table>"], "csv": ["3"],
                       "markdown": ["| 3 |"]})


def keys(entry: dict, questions: pd.DataFrame = QUESTIONS) -> list[str]:
    (spec,) = parse_eval_models([entry])
    return [r.cache_key for r in build_requests(spec, questions, TABLES, 42)]


def write_responses(path, answers: dict) -> str:
    path.write_text("".join(json.dumps({"qap_id": q, "response": a}) + "\n" for q, a in answers.items()))
    return str(path)


def test_replay_key_follows_the_file_content_not_its_name(tmp_path):
    a = write_responses(tmp_path / "a.jsonl", {"q1": "3", "q2": "a"})
    b = write_responses(tmp_path / "b.jsonl", {"q1": "4", "q2": "b"})
    a_copy = write_responses(tmp_path / "a_copy.jsonl", {"q1": "3", "q2": "a"})
    entry = {"name": "r", "backend": "replay"}
    assert keys({**entry, "path": a}) != keys({**entry, "path": b})
    assert keys({**entry, "path": a}) == keys({**entry, "path": a_copy})


def test_keys_cover_answer_changing_fields_only():
    openai = {"name": "m", "backend": "openai", "model": "x", "base_url": URL}
    base_keys = keys(openai)
    assert keys({**openai, "base_url": "http://other:1/v1", "concurrency": 3, "timeout_s": 5}) == base_keys
    for changed in ({"model": "y"}, {"revision": "r2"}, {"params": {"temperature": 0.5}}, {"system_role": False},
                    {"name": "m2"}):
        assert keys({**openai, **changed}) != base_keys, changed
    vllm = {"name": "v", "backend": "vllm", "model": "/models/x"}
    assert keys({**vllm, "dtype": "float16"}) != keys(vllm)
    assert keys({**vllm, "gpu_memory_utilization": 0.5}) == keys(vllm)


def test_oracle_key_follows_the_ground_truth():
    fixed = QUESTIONS.assign(answer_gt=["{4}", "{a}"])
    before, after = keys({"name": "o", "backend": "oracle"}), keys({"name": "o", "backend": "oracle"}, fixed)
    assert before[0] != after[0] and before[1] == after[1]


def test_families_and_a_sample_per_family_pick_the_questions():
    from evaluation_py.running.requests import select_questions

    families = ["q01", "welch_test", "ms_retrieval"]
    questions = pd.DataFrame({"question_id": [f"t{i}--{f}" for i in range(6) for f in families + ["q02"]],
                              "table_id": [f"t{i}" for i in range(6) for _ in range(4)],
                              "family": [f for _ in range(6) for f in families + ["q02"]]})
    (one,) = parse_eval_models([{"name": "m", "backend": "oracle", "families": families, "sample_per_family": 1}])
    chosen = select_questions(one, questions, 42)
    assert sorted(chosen["family"]) == sorted(families)
    (two,) = parse_eval_models([{"name": "m", "backend": "oracle", "families": families, "sample_per_family": 2}])
    more = select_questions(two, questions, 42)
    # two per family, the one-per-family sample among them (one seeded order, cut per family)
    assert more.groupby("family").size().to_dict() == dict.fromkeys(families, 2)
    assert set(chosen["question_id"]) <= set(more["question_id"])
    (only,) = parse_eval_models([{"name": "m", "backend": "oracle", "families": "q02"}])
    assert set(select_questions(only, questions, 42)["family"]) == {"q02"}
    with pytest.raises(ValueError, match="key `families` needs each question's family"):
        select_questions(only, questions.drop(columns="family"), 42)


def test_a_sample_holds_a_table_s_perturbed_views_together():
    from evaluation_py.running.requests import select_questions

    # 40 tables, each with a robustness question on the table and on three views, and two lookups
    rows = [(f"t{i:02d}--robustness--{v}", f"t{i:02d}", "robustness") for i in range(40) for v in range(4)] + \
        [(f"t{i:02d}--q01--{v}", f"t{i:02d}", "q01") for i in range(40) for v in range(2)]
    questions = pd.DataFrame(rows, columns=["question_id", "table_id", "family"])
    (entry,) = parse_eval_models([{"name": "m", "backend": "oracle", "sample": 61}])
    chosen = select_questions(entry, questions, 42)
    sizes = chosen[chosen["family"] == "robustness"].groupby("table_id").size()
    # every sampled group is whole but the one the sample cut; the lookups are sampled one by one
    assert len(chosen) == 61 and (sizes < 4).sum() <= 1 and (sizes == 4).sum() >= 5
    singles = chosen[chosen["family"] == "q01"].groupby("table_id").size()
    assert (singles == 1).any()


def test_max_table_cells_asks_only_on_small_tables_before_the_sample():
    from evaluation_py.dbt_glue.evaluation_inputs import with_table_cells
    from evaluation_py.running.requests import select_questions

    families = ["q01", "welch_test"]
    tables = pd.DataFrame({"table_id": [f"t{i}" for i in range(8)], "n_cells": [10, 500, 20, 900, 30, 40, 600, 12]})
    questions = pd.DataFrame({"question_id": [f"t{i}--{f}" for i in range(8) for f in families],
                              "table_id": [f"t{i}" for i in range(8) for _ in families],
                              "family": [f for _ in range(8) for f in families]})
    (small,) = parse_eval_models([{"name": "m", "backend": "oracle", "families": families, "sample_per_family": 2,
                                   "max_table_cells": 30}])
    sized = with_table_cells(questions, tables, "m")
    chosen = select_questions(small, sized, 42)
    # two per family, every one on a table of at most 30 cells (t0, t2, t4, t7)
    assert chosen.groupby("family").size().to_dict() == dict.fromkeys(families, 2)
    assert set(chosen["table_id"]) <= {"t0", "t2", "t4", "t7"}
    (every,) = parse_eval_models([{"name": "m", "backend": "oracle", "max_table_cells": 30}])
    assert len(select_questions(every, sized, 42)) == 8
    with pytest.raises(ValueError, match="entry 'm': key `max_table_cells` needs each question's table size"):
        select_questions(every, questions, 42)
    with pytest.raises(ValueError, match="entry 'm': key `max_table_cells` reads benchmark_tables.n_cells"):
        with_table_cells(questions, tables.drop(columns="n_cells"), "m")
    with pytest.raises(ValueError, match="entry 'm': key `max_table_cells`: table 't7' has no row"):
        with_table_cells(questions, tables.head(7), "m")


@pytest.mark.parametrize("extra, message", [
    ({"families": ["welch_tset"]}, r"key `families`: .*welch_tset.*welch_test"),
    ({"families": []}, "key `families` .* non-empty list of distinct question families"),
    ({"families": ["q01", "q01"]}, "non-empty list of distinct"),
    ({"sample_per_family": 0}, "key `sample_per_family` 0 must be a positive number"),
    ({"sample_per_family": 1, "sample": 5}, "`sample` and `sample_per_family` exclude each other"),
    ({"max_table_cells": 0}, "key `max_table_cells` 0 must be a positive number of cells"),
    ({"max_table_cells": "50"}, "key `max_table_cells` '50' must be a positive number of cells"),
])
def test_bad_family_keys_name_the_entry_and_the_key(extra, message):
    with pytest.raises(ValueError, match=r"eval_models entry 1 .*" + message):
        parse_eval_models([{"name": "m", "backend": "oracle", **extra}])
