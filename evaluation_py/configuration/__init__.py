"""Models under test as configured: the `eval_models` entries, parsed and checked (`model_specs`), and what an
entry says about its model for the analyses (`model_metadata`).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "ModelSpec": "model_specs",
    "parse_eval_models": "model_specs",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
