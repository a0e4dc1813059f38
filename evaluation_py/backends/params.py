"""Decoding parameters shared by the LLM backends, and the order in which requests are sent."""
from __future__ import annotations

from typing import Any, Iterable

from .base import PredictionRequest

#: Defaults every LLM backend applies unless the configuration overrides them.
DEFAULT_PARAMS: dict[str, Any] = {"temperature": 0.0, "max_tokens": 256}


def resolve_params(config_params: dict | None, request_params: dict | None = None) -> dict[str, Any]:
    """Effective decoding parameters: defaults, then the backend config's `params`, then the request's.

    Whoever builds requests should put `resolve_params(config.get("params"))` into
    `PredictionRequest.params` so the cache key covers exactly what is sent.
    """
    out = dict(DEFAULT_PARAMS)
    out.update(config_params or {})
    out.update(request_params or {})
    # `top_logprobs` only makes sense together with `logprobs`.
    if out.get("top_logprobs") is not None and not out.get("logprobs"):
        out["logprobs"] = True
    return out


def group_by_table(requests: Iterable[PredictionRequest]) -> list[PredictionRequest]:
    """Requests reordered so those sharing a `table_id` are adjacent.

    Tables keep the order of their first appearance and requests keep their order within a table,
    so prompts sharing a table prefix reach the server together (prefix caching).
    """
    groups: dict[str, list[PredictionRequest]] = {}
    for r in requests:
        groups.setdefault(r.table_id, []).append(r)
    return [r for g in groups.values() for r in g]
