"""A package's public front whose names are imported from their modules on first use.

A front that imported every module at once would make `import generator_py.tables` import the whole
package (and could close an import cycle); a module `__getattr__` defers each import to the first use
of its name.
"""
from __future__ import annotations

from importlib import import_module
from typing import Callable, Mapping


def lazy_front(package: str, exports: Mapping[str, str], namespace: dict) -> tuple[Callable, Callable]:
    """The `__getattr__` and `__dir__` of `package`: `exports` maps each public name to the submodule
    (relative to `package`) that defines it; `namespace` is the package's `globals()`."""

    def __getattr__(name: str):
        if name in exports:
            return getattr(import_module(f"{package}.{exports[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
