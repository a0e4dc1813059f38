"""Relational tables (T_REL): the in-memory table and the one reader of the built rows (`relational`),
sampling one table from a variant (`sampling`), its cell values from the measure's value model
(`cell_values`) and the generation the dbt models call (`generation`: seeds in, sampled tables out).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "RelationalTable": "relational",
    "relational_rows": "relational",
    "sample_table": "sampling",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
