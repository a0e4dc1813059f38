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
                   identity: Optional[dict] = None) -> str:
    """`identity`: what else decides the answer for this backend (`Backend.cache_identity`), when anything."""
    payload = {
        "model_name": model_name,
        "backend": backend,
        "model": model,
        "params": params,
        "messages": list(messages),
    }
    if identity is not None:  # left out otherwise, so keys of backends without one stay as they were
        payload["identity"] = identity
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Backend(ABC):
    """Answers requests; calls `on_result` once per request, as soon as its prediction is final."""

    name: str = ""
    #: Entry keys this backend reads beyond the common ones (name, backend, model, params, ...).
    entry_keys: frozenset[str] = frozenset()
    #: The model when an entry names none (None: the entry must name one).
    default_model: Optional[str] = None
    #: `system_role` when an entry does not set it.
    default_system_role: bool = True

    @classmethod
    def cache_identity(cls, config: dict[str, Any]) -> Optional[dict]:
        """What decides answers beyond model id, params and messages (weights, context), for the cache key."""
        return None

    def __init__(self, config: dict[str, Any]):
        self.config = config

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


def get_backend(name: str, config: dict[str, Any]) -> Backend:
    if name not in _REGISTRY:
        raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(backend_names())}")
    return _REGISTRY[name](config)


def backend_class(name: str) -> type[Backend]:
    if name not in _REGISTRY:
        raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(backend_names())}")
    return _REGISTRY[name]
