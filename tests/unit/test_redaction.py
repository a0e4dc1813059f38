"""Secrets are masked in every message that shows an entry; the build's gate checks every input once."""
from __future__ import annotations

import json

import pytest

from evaluation_py.backends import replay_backend
from evaluation_py.dbt_glue.evaluation_inputs import check_build_inputs
from evaluation_py.scoring.judge import parse_judge_model
from evaluation_py.configuration.model_specs import parse_eval_models
from evaluation_py.configuration.redaction import MASK, redact_entry, redact_text

KEY = "sk-FAKEfake1234567890abcdefXYZ"


def test_secret_keys_and_token_like_text_are_masked_and_names_are_kept():
    entry = {"name": "m", "backend": "openai", "api_key": KEY, "api_key_env": "MY_KEY",
             "base_url": "http://user:hunter2@host:8000/v1", "params": {"headers": {"Authorization": "Bearer abc.def.ghi"}},
             "note": f"key is {KEY}", "digest": "a" * 64, "path": "/tmp/pytest-of-root/test_x0/answers_2024.jsonl"}
    shown = redact_entry(entry)
    assert shown["api_key"] == MASK and shown["params"]["headers"]["Authorization"] == MASK
    assert shown["base_url"] == f"http://{MASK}@host:8000/v1" and shown["note"] == f"key is {MASK}"
    assert shown["api_key_env"] == "MY_KEY" and shown["digest"] == "a" * 64 and shown["path"] == entry["path"]
    assert KEY not in repr(shown) and "hunter2" not in repr(shown)
    assert redact_text("token hf_abcdefghijklmnop and ghp_0123456789abcdefghij") == f"token {MASK} and {MASK}"
    assert redact_text("Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8") == MASK  # a long run of letters and digits


def test_a_refused_entry_names_the_entry_and_key_but_not_the_secret():
    entry = {"name": "m", "backend": "openai", "model": "x", "base_url": "http://127.0.0.1:9/v1", "api_key": KEY}
    with pytest.raises(ValueError) as refused:
        parse_eval_models([entry])
    assert "eval_models entry 1" in str(refused.value) and "unknown key 'api_key'" in str(refused.value)
    assert KEY not in str(refused.value)
    bad_value = {"name": "m", "backend": "openai", "model": "x", "base_url": "http://127.0.0.1:9/v1",
                 "timeout_s": KEY}  # a secret pasted under the wrong key, echoed by the backend's own check
    with pytest.raises(ValueError) as refused:
        parse_eval_models([bad_value])
    assert "timeout_s" in str(refused.value) and KEY not in str(refused.value)
    with pytest.raises(ValueError) as refused:
        parse_judge_model({"backend": "openai", "model": "j", "base_url": "http://127.0.0.1:9/v1", "token": KEY})
    assert str(refused.value).startswith("var judge_model: unknown key 'token'") and KEY not in str(refused.value)
    with pytest.raises(ValueError) as refused:
        parse_judge_model(KEY)
    assert "var judge_model must be one model entry" in str(refused.value) and KEY not in str(refused.value)


def test_the_gate_refuses_each_bad_input_naming_it(tmp_path):
    with pytest.raises(ValueError, match="var judge_model must be one model entry"):
        check_build_inputs(None, "judgeme", None, None)
    with pytest.raises(ValueError, match="var finetune_split_fractions .*the shares sum to 1.5"):
        check_build_inputs(None, None, "[0.5, 0.5, 0.5]", None)
    replay = tmp_path / "answers.jsonl"
    replay.write_text('{"qap_id": "a", "response": "1"}\nnot JSON\n')
    with pytest.raises(ValueError, match=f"{replay}:2: malformed JSON"):
        check_build_inputs([{"name": "r", "backend": "replay", "path": str(replay)}], None, None, None)
    with pytest.raises(ValueError, match=f"{replay}:2: malformed JSON"):  # a replay judge's file too
        check_build_inputs(None, {"backend": "replay", "path": str(replay)}, None, None)
    release = tmp_path / "release"
    release.mkdir()
    text = json.dumps([{"ids": "t1", "table_info": {"table_formats": {"csv": ",a\n0,1\n"}}}])
    (release / "realWorld_HCT_qaps.json").write_text(text[: len(text) // 2])
    with pytest.raises(ValueError, match="realWorld_HCT_qaps.json: not a JSON file"):
        check_build_inputs(None, None, None, str(release))


def test_a_responses_file_is_read_once_while_unchanged(tmp_path, monkeypatch):
    path = tmp_path / "answers.jsonl"
    path.write_text('{"qap_id": "a", "response": "1"}\n')
    reads = []
    real = replay_backend._read_responses
    monkeypatch.setattr(replay_backend, "_read_responses", lambda p: reads.append(p) or real(p))
    first = replay_backend.read_responses(path)
    assert replay_backend.read_responses(path) is first and len(reads) == 1
    path.write_text('{"qap_id": "a", "response": "2"}\n{"qap_id": "b", "response": "3"}\n')  # another size
    assert replay_backend.read_responses(path).responses == {"a": "2", "b": "3"} and len(reads) == 2


def test_recorded_entries_mask_what_messages_mask():
    # an entry accepted as it is can still hold a credential in its URL: eval_runs and the results file
    # record it through the same redaction as every message
    from evaluation_py.running.runs import entries_json

    entry = {"name": "m", "backend": "openai", "model": "x", "api_key_env": "MY_KEY",
             "base_url": f"https://bob:{KEY}@api.example.com/v1"}
    parse_eval_models([entry])
    recorded = json.loads(entries_json([entry]))
    assert recorded == [{**entry, "base_url": f"https://{MASK}@api.example.com/v1"}]
    assert KEY not in entries_json([entry])
