"""Answers: the ground truth of a SQL question on a relational table (`ground_truth`) and its checks,
the SQL text run again in SQLite (`sqlite_answers`, `sql_cross_check`) and the computed families'
answers recomputed with numpy (`computed_cross_check`).

The names below are a lazy front: each is imported from its module on first use."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "cross_check_frame": "sql_cross_check",
    "family_cross_check": "computed_cross_check",
    "ground_truth": "ground_truth",
}
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
