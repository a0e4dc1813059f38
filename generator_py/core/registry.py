"""One registry type for every extension of the project: question families, table formats, inference modes,
backends, metrics and answer-extraction filters.

A `Registry` maps a name to a registered thing in registration order (the order generation, score tables
and listings use). Registering a name twice is a `RegistryError`; looking up an unknown name raises
`UnknownNameError`, which names the closest registered names. Every entry records a one-line description
and its origin (the module that registered it, or the distribution of a plugin), so a registry can be
listed.

Plugins: a registry made with `entry_point_group` (e.g. "hctqa.metrics") also holds what installed
distributions declare under that group in their metadata
(`[project.entry-points."hctqa.metrics"] my_metric = "my_pkg.metrics:MY_METRIC"`). The entry point's name
is the registered name and its object the registered thing; they are loaded once, on the first lookup or
listing, after the project's own registrations. No dbt imports.
"""
from __future__ import annotations

import difflib
import inspect
import threading
from dataclasses import dataclass
from importlib import metadata
from typing import Callable, Generic, Iterator, Optional, TypeVar

T = TypeVar("T")


class RegistryError(ValueError):
    """A registration the registry refuses: a name registered already, or an invalid thing."""


class UnknownNameError(LookupError, ValueError):
    """A lookup of a name nothing is registered under (a LookupError; a ValueError for callers that check
    configuration values)."""

    def __init__(self, kind: str, name: object, known: tuple[str, ...]):
        self.kind, self.name, self.known = kind, name, known
        close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        super().__init__(f"unknown {kind} {name!r}{hint} (registered: {', '.join(known) or 'none'})")

    def __str__(self) -> str:  # LookupError's KeyError cousin would repr the message; keep it plain
        return self.args[0]


@dataclass(frozen=True)
class RegistryEntry:
    name: str
    description: str
    origin: str


def describe(item: object) -> str:
    """The first line of a thing's `description` attribute or, failing that, of its docstring."""
    text = getattr(item, "description", None)
    if not isinstance(text, str) or not text.strip():
        text = inspect.getdoc(item) or ""
    return text.strip().splitlines()[0] if text.strip() else ""


class Registry(Generic[T]):
    """Named things of one kind (see the module docstring).

    `kind`: what the things are, for messages ("metric"); `entry_point_group`: the plugin group read once,
    lazily; `prepare(name, item) -> item`: checks a thing (raising ValueError or TypeError) and completes it
    before it is stored.
    """

    def __init__(self, kind: str, *, entry_point_group: Optional[str] = None,
                 prepare: Optional[Callable[[str, T], T]] = None):
        self.kind = kind
        self.entry_point_group = entry_point_group
        self._prepare = prepare
        self._items: dict[str, T] = {}
        self._entries: dict[str, RegistryEntry] = {}
        self._plugins_loaded = entry_point_group is None
        self._plugins_loading = False
        # dbt runs models on several threads: one loads the plugins, the others wait for it to finish
        self._plugins_lock = threading.RLock()

    def register(self, name: str, item: T, *, description: Optional[str] = None, origin: Optional[str] = None) -> T:
        """Store `item` under `name`; a name registered already is a RegistryError (nothing is replaced)."""
        if not isinstance(name, str) or not name:
            raise RegistryError(f"{self.kind} name must be a non-empty string, got {name!r}")
        if name in self._items:
            raise RegistryError(f"{self.kind} {name!r} is registered already (by {self._entries[name].origin})")
        if self._prepare is not None:
            item = self._prepare(name, item)
        if origin is None:
            origin = _caller_module()
        self._items[name] = item
        self._entries[name] = RegistryEntry(name, describe(item) if description is None else description, origin)
        return item

    def unregister(self, name: str) -> T:
        """Remove and return a registered thing (tests that register a toy take it away again)."""
        item = self.get(name)
        del self._items[name], self._entries[name]
        return item

    def _load_plugins(self) -> None:
        if self._plugins_loaded:
            return
        with self._plugins_lock:
            if self._plugins_loaded or self._plugins_loading:  # loaded meanwhile, or a plugin looking us up
                return
            self._plugins_loading = True
            try:
                self._load_entry_points()
            finally:
                self._plugins_loading = False
                self._plugins_loaded = True

    def _load_entry_points(self) -> None:
        for ep in sorted(metadata.entry_points(group=self.entry_point_group), key=lambda e: e.name):
            where = f"entry point {ep.name!r} = {ep.value!r} of group {self.entry_point_group!r}"
            dist = getattr(ep, "dist", None)
            origin = f"plugin {dist.metadata['Name']}" if dist is not None else f"plugin {ep.value}"
            try:
                item = ep.load()
            except Exception as e:
                raise RegistryError(f"{where} ({origin}) does not load: {type(e).__name__}: {e}") from e
            try:
                self.register(ep.name, item, origin=origin)
            except (TypeError, ValueError) as e:
                raise RegistryError(f"{where} ({origin}): {e}") from e

    def get(self, name: str) -> T:
        self._load_plugins()
        try:
            return self._items[name]
        except (KeyError, TypeError):
            raise UnknownNameError(self.kind, name, tuple(self._items)) from None

    def entry(self, name: str) -> RegistryEntry:
        self.get(name)
        return self._entries[name]

    def names(self) -> tuple[str, ...]:
        self._load_plugins()
        return tuple(self._items)

    def items(self) -> tuple[tuple[str, T], ...]:
        self._load_plugins()
        return tuple(self._items.items())

    def listing(self) -> list[RegistryEntry]:
        self._load_plugins()
        return list(self._entries.values())

    def __iter__(self) -> Iterator[T]:
        self._load_plugins()
        return iter(tuple(self._items.values()))

    def __len__(self) -> int:
        self._load_plugins()
        return len(self._items)

    def __contains__(self, name: object) -> bool:
        self._load_plugins()
        return name in self._items


def _caller_module() -> str:
    """The module that called `register`, past this one and helpers named `register...` (a kind's own
    registering function)."""
    frame = inspect.currentframe()
    try:
        f = frame.f_back if frame else None
        while f is not None and (f.f_globals.get("__name__") == __name__
                                 or f.f_code.co_name.lstrip("_").startswith("register")):
            f = f.f_back
        return f.f_globals.get("__name__", "?") if f is not None else "?"
    finally:
        del frame
