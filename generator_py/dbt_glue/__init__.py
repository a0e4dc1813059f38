"""What the dbt Python models hand over: vars rendered as text (`vars`), the build's configuration,
checked once, and its fingerprint (`build_config`), relations read as Arrow tables (`relations`). No dbt imports.

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "arrow_table": "relations",
    "bool_var": "vars",
    "seed_var": "vars",
    "stamp": "build_config",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
