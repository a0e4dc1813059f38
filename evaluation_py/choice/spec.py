"""The `choice_items` key of an `eval_models` entry: which two-option items a model answers, and how.

    choice_items: {sample: 50, subsets: [b_tis, m_tis], logprobs: true, top_logprobs: 10, max_tokens: 8}

- `sample`: items per subset (a seeded order that depends on the item only, so a smaller sample is part
  of a larger one and models with the same sample answer the same items); omitted: every item;
- `subsets`: among `SUBSETS` (default: all);
- `logprobs`: ask for the first output token's log-probabilities (default: true where the backend has
  the `logprobs` capability; `true` with a backend lacking it is an error);
- `top_logprobs` (10): alternatives returned for that token; `max_tokens` (8): the answer is a letter.

`choice_items: true` is every item with the defaults; absent or `false`: the model answers no item.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Optional

SUBSETS = ("b_tis", "su_tis", "m_tis", "tsu_pcl", "tsu_prl", "tsu_pll", "tsu_rcl", "tsu_rrl", "tsu_rll")
KEYS = frozenset({"sample", "subsets", "logprobs", "top_logprobs", "max_tokens"})
DEFAULT_TOP_LOGPROBS = 10
DEFAULT_MAX_TOKENS = 8


@dataclass(frozen=True)
class ChoiceSpec:
    sample: Optional[int] = None  # items per subset; None: all
    subsets: tuple[str, ...] = SUBSETS
    logprobs: bool = False  # resolved against the backend's capability
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    max_tokens: int = DEFAULT_MAX_TOKENS


def _positive_int(value: Any, key: str, low: int = 1, high: Optional[int] = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        span = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValueError(f"key `choice_items.{key}` {value!r} must be an integer {span}")
    return value


def parse_choice_items(raw: Any, backend_capabilities: frozenset[str], backend_name: str) -> Optional[ChoiceSpec]:
    """The entry's `choice_items` value as a ChoiceSpec (None: no items); ValueError naming the key."""
    if raw is None or raw is False:
        return None
    has_logprobs = "logprobs" in backend_capabilities
    if raw is True:
        return ChoiceSpec(logprobs=has_logprobs)
    if not isinstance(raw, dict):
        raise ValueError(f"key `choice_items` must be true, false or a mapping ({', '.join(sorted(KEYS))}), "
                         f"got {raw!r}")
    for key in raw:
        if key not in KEYS:
            close = difflib.get_close_matches(str(key), sorted(KEYS), n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(sorted(KEYS))}"
            raise ValueError(f"key `choice_items`: unknown key {key!r}; {hint}")
    sample = raw.get("sample")
    if sample is not None:
        sample = _positive_int(sample, "sample")
    subsets = raw.get("subsets", list(SUBSETS))
    subsets = [subsets] if isinstance(subsets, str) else subsets
    if not isinstance(subsets, list) or not subsets or len(set(map(str, subsets))) != len(subsets):
        raise ValueError(f"key `choice_items.subsets` {subsets!r} must be a non-empty list of distinct subsets")
    bad = [s for s in subsets if s not in SUBSETS]
    if bad:
        raise ValueError(f"key `choice_items.subsets`: unknown subset {bad[0]!r}; known: {', '.join(SUBSETS)}")
    logprobs = raw.get("logprobs", has_logprobs)
    if not isinstance(logprobs, bool):
        raise ValueError(f"key `choice_items.logprobs` must be true or false, got {logprobs!r}")
    if logprobs and not has_logprobs:
        raise ValueError(f"key `choice_items.logprobs`: backend {backend_name!r} has no log-probabilities "
                         "(capability 'logprobs'); its items are scored from the text only")
    top = _positive_int(raw.get("top_logprobs", DEFAULT_TOP_LOGPROBS), "top_logprobs", 2, 20)
    max_tokens = _positive_int(raw.get("max_tokens", DEFAULT_MAX_TOKENS), "max_tokens")
    return ChoiceSpec(sample, tuple(s for s in SUBSETS if s in subsets), logprobs, top, max_tokens)
