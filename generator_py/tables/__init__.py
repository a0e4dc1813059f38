"""Relational tables (T_REL): the in-memory table and the one reader of the built rows (`relational`),
sampling one table from a variant (`sampling`) and the generation the dbt models call
(`generation`: seeds in, sampled tables out).

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "RelationalTable": "relational",
    "relational_rows": "relational",
    "sample_table": "sampling",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
