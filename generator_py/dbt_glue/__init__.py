"""What the dbt Python models hand over: vars rendered as text (`vars`), the build's configuration,
checked once, and its fingerprint (`build_config`). No dbt imports.

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "bool_var": "vars",
    "seed_var": "vars",
    "stamp": "build_config",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
