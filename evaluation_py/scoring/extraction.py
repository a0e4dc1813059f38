"""Answer extraction: the filter that takes the answer out of a raw response, chosen per inference mode.

A filter is a function ``response -> text`` (``None`` stays ``None``: a missing response)
registered by name (:func:`register_filter`, or a plugin's ``hctqa.filters`` entry point); a
registered inference mode names its filter (its `extraction`), a filter may declare the modes scored
only from another harness's outputs that it reads (``modes``), and any other mode uses the filter
registered under its own name. The scoring modes then read the
extracted text (:mod:`evaluation_py.scoring.scores`).

``direct`` is the identity: the scoring modes read the response as it came, as they always
have. ``final_answer`` keeps what follows the last ``final answer`` marker (a chain of thought
ends with one; without a marker, the whole response); the reasoning modes use it until one
registers a filter of its own (``pot`` wants its program run, a job for the sandbox).
No dbt imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from generator_py.core.registry import Registry, UnknownNameError, describe

from .final_answer import after_final_answer
from .paper_reading import is_missing

Filter = Callable[[Optional[str]], Optional[str]]
DEFAULT_INFERENCE_MODE = "direct"



@dataclass(frozen=True)
class ExtractionFilter:
    """A filter and the inference modes it reads beyond those that name it (`modes`: modes that are not
    registered here, whose outputs come from another harness and are only scored)."""

    read: Filter
    description: str = ""
    modes: frozenset[str] = frozenset()


def _checked(name: str, item) -> ExtractionFilter:
    if callable(item) and not isinstance(item, ExtractionFilter):  # a plugin may name a bare function
        item = ExtractionFilter(item, describe(item))
    if not isinstance(item, ExtractionFilter) or not callable(item.read):
        raise TypeError(f"extraction filter {name!r} must be a function of a response")
    return item


FILTERS: Registry[ExtractionFilter] = Registry("extraction filter", entry_point_group="hctqa.filters",
                                               prepare=_checked)


def register_filter(name: str, fn: Filter, *, description: Optional[str] = None,
                    modes: Iterable[str] = ()) -> ExtractionFilter:
    """Register extraction filter ``name`` (a name is registered once); ``modes``: unregistered inference
    modes whose responses it reads."""
    if not callable(fn):
        raise TypeError(f"extraction filter {name!r} must be a function of a response")
    modes = (modes,) if isinstance(modes, str) else modes
    return FILTERS.register(name, ExtractionFilter(fn, describe(fn) if description is None else description,
                                                   frozenset(modes)))


def unregister_filter(name: str) -> None:
    FILTERS.unregister(name)


def filter_names() -> tuple[str, ...]:
    return FILTERS.names()


def filter_name_for(inference_mode: str) -> str:
    """The filter of an inference mode: a registered mode's own `extraction`
    (:mod:`evaluation_py.modes.inference_mode`), else the filter that declares the mode among its `modes` (modes
    whose outputs are only scored here, from another harness), else the one under the mode's own name."""
    from ..modes import inference_mode as inference_modes  # late: that module imports the prompts and backends

    if inference_mode in inference_modes.MODES:
        name = inference_modes.get_mode(inference_mode).extraction
    else:
        claiming = [n for n, f in FILTERS.items() if inference_mode in f.modes]
        name = claiming[0] if claiming else inference_mode
    if name not in FILTERS:
        raise UnknownNameError("extraction filter", name, FILTERS.names()) from None
    return name


def extract(responses: Iterable, inference_mode: str = DEFAULT_INFERENCE_MODE) -> list:
    """The answers the filter of ``inference_mode`` takes from ``responses`` (missing ones stay None)."""
    fn = FILTERS.get(filter_name_for(inference_mode)).read
    return [None if is_missing(r) else fn(str(r)) for r in responses]


def direct(response: str | None) -> str | None:
    """The response as it came."""
    return response


def final_answer(response: str | None) -> str | None:
    return None if response is None else after_final_answer(response)


register_filter("direct", direct)
register_filter("final_answer", final_answer)
