"""The metric registry: every score of a prediction is a registered function of its value match.

A scoring mode (:mod:`evaluation_py.scoring`) reads a response and a ground truth into a
:class:`Match`: how many distinct values each side holds and how many of them the other side
matches. A metric is a function of that match, registered by name; ``eval_scores`` holds one
row per prediction, scoring mode and registered metric, and every summary, breakdown, plot
and regression takes any registered metric. Adding a metric is one :func:`register` call.

The four metrics of HCT-QA are registered here: ``precision``, ``recall``, ``f1`` and ``cc``
(complete containment: 1 when every ground-truth value is matched, else 0). No dbt imports.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple


class Match(NamedTuple):
    """What a scoring mode found when it compared one response with one ground truth."""
    n_given: int  # distinct values read from the response
    n_given_matched: int  # of them, those that match some ground-truth value
    n_expected: int  # distinct ground-truth values
    n_expected_matched: int  # of them, those matched by some response value


@dataclass(frozen=True)
class Metric:
    name: str
    score: Callable[[Match], float]
    description: str
    # 0/1 outcomes: the regression fits a linear probability model (and a logit when asked).
    binary: bool = False


_REGISTRY: dict[str, Metric] = {}


def register(name: str, score: Callable[[Match], float], description: str, binary: bool = False) -> Metric:
    """Register metric ``name``; it then appears in every score table and analysis. A name is registered once."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"metric name {name!r} must be an identifier (it names rows and columns)")
    if name in _REGISTRY:
        raise ValueError(f"metric {name!r} is already registered")
    if not callable(score):
        raise TypeError(f"metric {name!r}: score must be a function of a Match, got {type(score).__name__}")
    metric = _REGISTRY[name] = Metric(name, score, description, binary)
    return metric


def unregister(name: str) -> None:
    """Remove a registered metric (tests register toy ones and take them away)."""
    if name not in _REGISTRY:
        raise KeyError(f"metric {name!r} is not registered (registered: {', '.join(_REGISTRY)})")
    del _REGISTRY[name]


def names() -> tuple[str, ...]:
    """The registered metrics, in registration order (the order of every table)."""
    return tuple(_REGISTRY)


def get(name: str) -> Metric:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; registered: {', '.join(_REGISTRY)}") from None


def is_binary(name: str) -> bool:
    return get(name).binary


def precision(m: Match) -> float:
    return m.n_given_matched / max(m.n_given, 1) if m.n_given_matched else 0.0


def recall(m: Match) -> float:
    return m.n_expected_matched / max(m.n_expected, 1) if m.n_expected_matched else 0.0


def f1(m: Match) -> float:
    p, r = precision(m), recall(m)
    return 2.0 * p * r / (p + r) if p + r > 0 else 0.0


def complete_containment(m: Match) -> float:
    return 1.0 if m.n_expected > 0 and m.n_expected_matched == m.n_expected else 0.0


register("precision", precision, "share of the response's values that match a ground-truth value")
register("recall", recall, "share of the ground truth's values matched by a response value")
register("f1", f1, "harmonic mean of precision and recall (0 when both are 0)")
register("cc", complete_containment, "complete containment: 1 when every ground-truth value is matched",
         binary=True)
