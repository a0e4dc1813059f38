"""The benchmark's files: Parquet (`parquet`), the HCT-QA release's qaps JSON beside it
(`benchmark_exports`), both reading the marts through `mart_frame`.

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "write_exports": "benchmark_exports",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
