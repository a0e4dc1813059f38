"""Answer extraction: the filter that takes the answer out of a raw response, chosen per inference mode.

A filter is a function ``response -> text`` (``None`` stays ``None``: a missing response)
registered by name; a registered inference mode names its filter (its `extraction`), a mode
scored only from another harness's outputs can be given one (:func:`use_filter`), and one with no
filter named uses the filter registered under its own name. The scoring modes then read the
extracted text (:mod:`evaluation_py.scoring`).

``direct`` is the identity: the scoring modes read the response as it came, as they always
have. ``final_answer`` keeps what follows the last ``final answer`` marker (a chain of thought
ends with one; without a marker, the whole response); the reasoning modes use it until one
registers a filter of its own (``pot`` wants its program run, a job for the sandbox).
No dbt imports.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional

from .final_answer import after_final_answer
from .normalize import is_missing

Filter = Callable[[Optional[str]], Optional[str]]
DEFAULT_INFERENCE_MODE = "direct"

_FILTERS: dict[str, Filter] = {}
_MODE_FILTERS: dict[str, str] = {}


def register_filter(name: str, fn: Filter) -> None:
    """Register extraction filter ``name``; a name is registered once."""
    if name in _FILTERS:
        raise ValueError(f"extraction filter {name!r} is already registered")
    if not callable(fn):
        raise TypeError(f"extraction filter {name!r} must be a function of a response")
    _FILTERS[name] = fn


def unregister_filter(name: str) -> None:
    if name not in _FILTERS:
        raise KeyError(f"extraction filter {name!r} is not registered")
    del _FILTERS[name]
    for mode in [m for m, f in _MODE_FILTERS.items() if f == name]:
        del _MODE_FILTERS[mode]


def use_filter(inference_mode: str, filter_name: str) -> None:
    """Name the filter that reads the responses of ``inference_mode``."""
    if filter_name not in _FILTERS:
        raise KeyError(f"inference mode {inference_mode!r}: no extraction filter {filter_name!r} "
                       f"(registered: {', '.join(_FILTERS)})")
    _MODE_FILTERS[inference_mode] = filter_name


def filter_names() -> tuple[str, ...]:
    return tuple(_FILTERS)


def filter_name_for(inference_mode: str) -> str:
    """The filter of an inference mode: a registered mode's own `extraction`
    (:mod:`evaluation_py.inference_modes`), else the one named with :func:`use_filter` (modes whose
    outputs are only scored here, from another harness), else the one under the mode's own name."""
    from . import inference_modes  # late: that module imports the prompts and backends

    if inference_mode in inference_modes.mode_names():
        name = inference_modes.get_mode(inference_mode).extraction
    else:
        name = _MODE_FILTERS.get(inference_mode, inference_mode)
    if name not in _FILTERS:
        raise KeyError(f"inference mode {inference_mode!r} has no extraction filter; name one with "
                       f"evaluation_py.extraction.use_filter (registered filters: {', '.join(_FILTERS)})")
    return name


def extract(responses: Iterable, inference_mode: str = DEFAULT_INFERENCE_MODE) -> list:
    """The answers the filter of ``inference_mode`` takes from ``responses`` (missing ones stay None)."""
    fn = _FILTERS[filter_name_for(inference_mode)]
    return [None if is_missing(r) else fn(str(r)) for r in responses]


def direct(response: str | None) -> str | None:
    return response


def final_answer(response: str | None) -> str | None:
    return None if response is None else after_final_answer(response)


register_filter("direct", direct)
register_filter("final_answer", final_answer)
for _mode in ("tcot", "icot", "pot"):
    use_filter(_mode, "final_answer")
