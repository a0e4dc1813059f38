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


def group_by_prompt_prefix(requests: Iterable[PredictionRequest]) -> list[PredictionRequest]:
    """Requests reordered so those whose prompts open alike are adjacent.

    A prompt opens with its inference mode's instructions (in its table format's wording), then shows the
    table: the requests of one mode and format go together, and among them those of one table. Groups keep
    the order of their first appearance and requests their order within a group. A server that reuses the
    previous prompt's evaluated prefix (llama.cpp keeps one) then skips the instructions, and the table too
    for a table's next question; one with a prefix cache (vLLM) finds it warm.
    """
    groups: dict[tuple[str, str, str], list[PredictionRequest]] = {}
    for r in requests:
        groups.setdefault((r.inference_mode, r.table_format, r.table_id), []).append(r)
    # a group's position: the first appearance of its mode and format, then of its table among them
    firsts = list(dict.fromkeys(key[:2] for key in groups))
    ordered = sorted(groups.items(), key=lambda item: firsts.index(item[0][:2]))  # stable: tables keep their order
    return [r for _, g in ordered for r in g]


# Types of the decoding parameters every server reads the same way; others go to the server as given.
_NUMBER, _INT, _BOOL = "a number", "an integer", "true or false"
PARAM_TYPES: dict[str, tuple[str, float | None]] = {  # name -> (kind, smallest allowed value)
    "temperature": (_NUMBER, 0), "top_p": (_NUMBER, 0), "min_p": (_NUMBER, 0),
    "presence_penalty": (_NUMBER, None), "frequency_penalty": (_NUMBER, None), "repetition_penalty": (_NUMBER, 0),
    "max_tokens": (_INT, 1), "top_k": (_INT, -1), "seed": (_INT, None), "n": (_INT, 1),
    "top_logprobs": (_INT, 0), "logprobs": (_BOOL, None),
}


def check_params(params: dict) -> None:
    """ValueError naming the first decoding parameter of the wrong type (`temperature: hot`)."""
    for name, value in params.items():
        if name == "stop":
            if value is not None and not isinstance(value, str) and not (
                    isinstance(value, list) and all(isinstance(v, str) for v in value)):
                raise ValueError(f"params.stop must be a string or a list of strings, got {value!r}")
            continue
        if name not in PARAM_TYPES or value is None:
            continue
        kind, low = PARAM_TYPES[name]
        if kind == _BOOL:
            ok = isinstance(value, bool)
        else:
            ok = not isinstance(value, bool) and isinstance(value, int if kind == _INT else (int, float))
        if not ok or (low is not None and value < low):
            bound = f" >= {low:g}" if low is not None and kind != _BOOL else ""
            raise ValueError(f"params.{name} must be {kind}{bound}, got {value!r}")
