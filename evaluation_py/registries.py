"""Every registry a user can list (`hctqa list KIND`): name, one-line description, where it comes from.

A read-only view over the registries the project keeps: question families, table formats, inference
modes, backends, metrics and answer-extraction filters.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Iterable


@dataclass(frozen=True)
class RegistryEntry:
    name: str
    description: str
    origin: str


def _first_line(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _origin(obj: Any) -> str:
    return getattr(obj, "__module__", None) or type(obj).__module__


class RegistryView:
    def __init__(self, entries: Callable[[], Iterable[RegistryEntry]]):
        self._entries = entries

    def listing(self) -> list[RegistryEntry]:
        return sorted(self._entries(), key=lambda e: e.name)

    def names(self) -> list[str]:
        return [e.name for e in self.listing()]


def _families():
    from generator_py.questions.families import ALL_FAMILIES

    for f in ALL_FAMILIES:
        yield RegistryEntry(f.family_id, _first_line(type(f)), _origin(type(f)))


def _formats():
    from generator_py.render.registry import format_names, get_format

    for name in format_names():
        fmt = get_format(name)
        kind = "text" if fmt.is_text else "image"
        yield RegistryEntry(name, f"{fmt.display_name} ({kind})", _origin(fmt.render))


def _modes():
    from evaluation_py.inference_modes import get_mode, mode_names

    for name in mode_names():
        mode = get_mode(name)
        turns = f"up to {mode.max_turns} turns" if mode.multi_turn else "one turn"
        code = ", runs code in the sandbox" if mode.runs_code else ""
        yield RegistryEntry(name, f"prompt {mode.prompt_version}, {turns}, extraction {mode.extraction}{code}",
                            _origin(mode.build_messages))


def _backends():
    import evaluation_py.backends  # noqa: F401  (fills the backend registry)
    from evaluation_py.backends.base import backend_class, backend_names

    for name in backend_names():
        cls = backend_class(name)
        yield RegistryEntry(name, _first_line(cls), _origin(cls))


def _metrics():
    from evaluation_py import metrics

    for name in metrics.names():
        m = metrics.get(name)
        yield RegistryEntry(name, m.description, _origin(m.score) if m.score is not None else metrics.__name__)


def _filters():
    from evaluation_py import extraction
    import evaluation_py.inference_modes  # noqa: F401  (modes register their filters)

    for name in extraction.filter_names():
        fn = extraction._FILTERS[name]
        yield RegistryEntry(name, _first_line(fn), _origin(fn))


REGISTRIES: dict[str, RegistryView] = {
    "families": RegistryView(_families),
    "formats": RegistryView(_formats),
    "modes": RegistryView(_modes),
    "backends": RegistryView(_backends),
    "metrics": RegistryView(_metrics),
    "filters": RegistryView(_filters),
}
