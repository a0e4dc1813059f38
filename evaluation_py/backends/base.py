"""The one small interface every inference backend implements, and the registry that picks one by name."""
from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional


@dataclass(frozen=True)
class PredictionRequest:
    """One prompt to answer. `cache_key` covers everything that changes the answer, nothing else."""

    cache_key: str
    question_id: str
    table_id: str
    model_name: str
    backend: str
    model: str
    table_format: str
    messages: tuple[dict, ...]
    params: dict = field(default_factory=dict)
    # Side information some non-LLM backends read; never part of the cache key.
    question: str = ""
    table_html: str = ""
    answer_gt: str = ""


@dataclass
class Prediction:
    cache_key: str
    question_id: str
    model_name: str
    response: Optional[str]
    error_kind: Optional[str] = None  # None when answered; e.g. "timeout", "http_500", "connection"
    attempts: int = 1
    latency_s: float = 0.0
    prompt_tokens: Optional[int] = None
    completion_tokens: Optional[int] = None
    logprobs_json: Optional[str] = None


def make_cache_key(model_name: str, backend: str, model: str, params: dict, messages: Iterable[dict],
                   identity: Optional[dict] = None, prompt_version: str = "") -> str:
    """sha256 of everything that decides an answer.

    `identity` holds the entry fields beyond model id and params that change answers
    (`Backend.answer_identity`: a replay file's content hash, a vLLM dtype, ...) and the request's
    side information the backend reads (`Backend.request_fields`).
    """
    payload = {
        "model_name": model_name,
        "backend": backend,
        "model": model,
        "params": params,
        "messages": list(messages),
        "identity": identity or {},
        "prompt_version": prompt_version,
    }
    if identity is not None:  # left out otherwise, so keys of backends without one stay as they were
        payload["identity"] = identity
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Backend(ABC):
    """Answers requests; calls `on_result` once per request, as soon as its prediction is final.

    Subclasses declare what they read from an `eval_models` entry, so that a misspelled key is an
    error (model_specs) and every key that changes answers is part of the cache key:

    - `entry_keys`: entry keys read beyond the common ones (`model_specs.COMMON_KEYS`);
    - `answer_keys`: those among them that change what is asked or answered (default: all of them,
      the safe side: a key wrongly listed only costs re-asking);
    - `request_fields`: `PredictionRequest` side fields read besides the messages (`answer_gt`, ...).
    """

    name: str = ""
    entry_keys: frozenset[str] = frozenset()
    answer_keys: Optional[frozenset[str]] = None  # None: every entry key
    request_fields: tuple[str, ...] = ()
    default_model: Optional[str] = None  # the model when an entry names none (None: it must name one)
    default_system_role: bool = True  # `system_role` when an entry does not set it

    def __init__(self, config: dict[str, Any]):
        self.config = config

    @classmethod
    def check_entry(cls, config: dict[str, Any]) -> None:
        """Raise ValueError for an entry this backend cannot run (checked before anything is built)."""

    @classmethod
    def answer_identity(cls, config: dict[str, Any]) -> dict[str, Any]:
        """The entry's answer-changing fields beyond model id and params, for the cache key."""
        keys = cls.entry_keys if cls.answer_keys is None else cls.answer_keys
        return {k: config[k] for k in sorted(keys) if config.get(k) is not None}

    @abstractmethod
    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        ...

    def close(self) -> None:  # release servers, engines, pools
        pass


_REGISTRY: dict[str, type[Backend]] = {}


def register(name: str) -> Callable[[type[Backend]], type[Backend]]:
    def deco(cls: type[Backend]) -> type[Backend]:
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return deco


def backend_names() -> list[str]:
    return sorted(_REGISTRY)


def backend_class(name: str) -> type[Backend]:
    if name not in _REGISTRY:
        raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(backend_names())}")
    return _REGISTRY[name]


def get_backend(name: str, config: dict[str, Any]) -> Backend:
    return backend_class(name)(config)
