"""The benchmark's files: Parquet (`parquet`), the HCT-QA release's qaps JSON beside it
(`benchmark_exports`), both reading the marts through `mart_frame`.

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "write_exports": "benchmark_exports",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
