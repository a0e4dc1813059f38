"""Running requests: building them (`requests`), the prediction store (`store`), running them through a
backend turn by turn (`runner`, `episodes`), progress lines (`progress`) and the evaluation steps the
dbt models call (`predictions`).

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "PredictionStore": "store",
    "predict": "predictions",
    "predict_pending": "predictions",
    "run_episodes": "episodes",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
