"""Running requests: building them (`requests`), the prediction store (`store`), running them through a
backend turn by turn (`runner`, `episodes`), progress lines (`progress`) and the evaluation steps the
dbt models call (`predictions`).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "PredictionStore": "store",
    "predict": "predictions",
    "predict_pending": "predictions",
    "run_episodes": "episodes",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
