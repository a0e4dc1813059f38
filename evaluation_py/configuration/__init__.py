"""Models under test as configured: the `eval_models` entries, parsed and checked (`model_specs`).

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "ModelSpec": "model_specs",
    "parse_eval_models": "model_specs",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
