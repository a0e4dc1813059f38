"""Answers: the ground truth of a SQL question on a relational table (`ground_truth`) and its checks,
the SQL text run again in SQLite (`sqlite_answers`, `sql_cross_check`) and the computed families'
answers recomputed with numpy (`computed_cross_check`).

The names below are a lazy front: each is imported from its module on first use."""
from importlib import import_module

_EXPORTS = {
    "cross_check_frame": "sql_cross_check",
    "family_cross_check": "computed_cross_check",
    "ground_truth": "ground_truth",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
