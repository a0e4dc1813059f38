"""The one small interface every inference backend implements, and the registry that picks one by name."""
from __future__ import annotations

import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from generator_py.core.registry import Registry

from .benchmark import BenchmarkLookup
from ..prompting.image_prompts import key_messages
from ..request_kinds import CAPABILITIES, REQUEST_KINDS


@dataclass(frozen=True)
class PredictionRequest:
    """One turn to answer. `cache_key` covers everything that changes the answer, nothing else.

    It carries what is sent (messages, params) and where it stands in its episode, never benchmark
    content: a backend that reads the ground truth or the table (oracle, header_match) gets it from
    the `BenchmarkLookup` it is built with.
    """

    cache_key: str
    question_id: str
    table_id: str
    model_name: str
    backend: str
    model: str
    table_format: str
    messages: tuple[dict, ...]
    params: dict = field(default_factory=dict)
    kind: str = "generate"  # "choose": pick one of given choices (a backend without logprobs answers in text)
    inference_mode: str = "direct"  # evaluation_py.modes.inference_mode
    turn: int = 0  # 0 for the first turn of an episode
    parent_key: Optional[str] = None  # the previous turn's cache_key; None on a first turn
    prompt_version: str = ""  # the version of the mode's prompt wording


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
                   identity: Optional[dict] = None, prompt_version: str = "", *, kind: str = "generate",
                   inference_mode: str = "direct", parent_key: Optional[str] = None) -> str:
    """sha256 of everything that decides an answer.

    `identity` holds the entry fields beyond model id and params that change answers
    (`Backend.answer_identity`: a replay file's content hash, a vLLM dtype, ...) and what the backend
    reads from the benchmark for this request (`Backend.benchmark_fields`). The kind, mode and parent
    enter only when not the defaults, so keys of single-turn `direct` requests stay as they were; a
    later turn's messages hold the whole conversation so far, and its parent key chains it to its turn.
    """
    payload = {
        "model_name": model_name,
        "backend": backend,
        "model": model,
        "params": params,
        "messages": key_messages(messages),  # an image by its hash, not its path
        "identity": identity or {},
        "prompt_version": prompt_version,
    }
    if identity is not None:  # left out otherwise, so keys of backends without one stay as they were
        payload["identity"] = identity
    if kind != "generate":
        payload["kind"] = kind
    if inference_mode != "direct":
        payload["inference_mode"] = inference_mode
    if parent_key is not None:
        payload["parent_key"] = parent_key
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Backend(ABC):
    """Answers requests; calls `on_result` once per request, as soon as its prediction is final.

    Subclasses declare what they read from an `eval_models` entry, so that a misspelled key is an
    error (model_specs) and every key that changes answers is part of the cache key:

    - `entry_keys`: entry keys read beyond the common ones (`model_specs.COMMON_KEYS`);
    - `answer_keys`: those among them that change what is asked or answered (default: all of them,
      the safe side: a key wrongly listed only costs re-asking);
    - `benchmark_fields`: what it reads per request from the benchmark besides the messages
      (`BenchmarkLookup.FIELDS`: `answer_gt`, `question`, `table_html`, `question_id`); a backend
      naming any but the request's own `question_id` is constructed with the lookup (`get_backend(..., benchmark=)`) and what it reads
      enters each request's cache key;
    - `capabilities`: what it can serve beyond one text turn (`CAPABILITIES`);
    - `needs_model`: an entry must name a model id (False: it answers without one, and its model id is
      the backend's name);
    - `speaks_openai`: its `params` are OpenAI-style decoding parameters, resolved against the defaults
      (backends.params);
    - `is_reference`: it answers from the ground truth (a check of the chain, left out of every fit).
    """

    name: str = ""
    entry_keys: frozenset[str] = frozenset()
    answer_keys: Optional[frozenset[str]] = None  # None: every entry key
    benchmark_fields: tuple[str, ...] = ()
    capabilities: frozenset[str] = frozenset()
    default_model: Optional[str] = None  # the model when an entry names none (None: it must name one)
    default_system_role: bool = True  # `system_role` when an entry does not set it
    needs_model: bool = True
    speaks_openai: bool = False
    is_reference: bool = False

    def __init__(self, config: dict[str, Any], benchmark: Optional[BenchmarkLookup] = None):
        self.config = config
        self.benchmark = benchmark

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


def _checked(name: str, cls: type[Backend]) -> type[Backend]:
    if not isinstance(cls, type) or not issubclass(cls, Backend):
        raise ValueError(f"backend {name!r} must be a Backend subclass, got {cls!r}")
    unknown = set(cls.capabilities) - CAPABILITIES
    if unknown:
        raise ValueError(f"backend {name!r}: unknown capabilities {sorted(unknown)}; known: {', '.join(sorted(CAPABILITIES))}")
    cls.name = name
    return cls


BACKENDS: Registry[type[Backend]] = Registry("backend", entry_point_group="hctqa.backends", prepare=_checked)


def register(name: str) -> Callable[[type[Backend]], type[Backend]]:
    """Class decorator: register a Backend subclass under `name` (a name registered already is an error)."""
    def deco(cls: type[Backend]) -> type[Backend]:
        return BACKENDS.register(name, cls, origin=cls.__module__)

    return deco


def backend_names() -> list[str]:
    return list(BACKENDS.names())


def backend_class(name: str) -> type[Backend]:
    return BACKENDS.get(name)


def get_backend(name: str, config: dict[str, Any], benchmark: Optional[BenchmarkLookup] = None) -> Backend:
    """A backend for an entry's config; one reading the benchmark (`benchmark_fields`) needs `benchmark`."""
    cls = backend_class(name)
    reads = [f for f in cls.benchmark_fields if f != "question_id"]  # the id is the request's own
    if not reads:
        return cls(config)
    if benchmark is None:
        raise ValueError(f"backend {name!r} reads {', '.join(reads)} from the benchmark: "
                         "construct it with benchmark=BenchmarkLookup(questions, tables)")
    return cls(config, benchmark)

