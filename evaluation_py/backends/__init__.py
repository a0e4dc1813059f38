"""Inference backends. Importing this package fills the registry (`get_backend(name, config)`)."""
from __future__ import annotations

from importlib.util import find_spec

from .base import (CAPABILITIES, Backend, Prediction, PredictionRequest, backend_class, backend_names, get_backend,
                   make_cache_key, register)
from .benchmark import BenchmarkLookup
from . import llamacpp_backend, openai_backend, oracle_backend, replay_backend, vllm_backend  # noqa: F401  (register)

# The header-match baseline lives in its own module, written separately; register it when present.
if find_spec(__name__ + ".header_match_backend") is not None:
    from . import header_match_backend  # noqa: F401

__all__ = ["CAPABILITIES", "Backend", "BenchmarkLookup", "Prediction", "PredictionRequest", "backend_class", "backend_names", "get_backend", "make_cache_key", "register"]
