"""Turns configs handed to a dbt Python model (vars rendered as text) into plain Python values.

Each `*_var` function checks one var and raises ValueError naming it; every model that reads a var
reads it through these, so a bad var fails the first model reading it, before that model writes.
"""
from __future__ import annotations

import ast
from typing import Iterable, Optional


def parse_config(raw):
    """A var passed through a config arrives rendered as text ("None", "5", "['a', 'b']")."""
    if raw is None or str(raw).strip() in ("", "None", "null"):
        return None
    try:
        return ast.literal_eval(str(raw))
    except (ValueError, SyntaxError):
        return str(raw)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def seed_var(raw) -> int:
    value = parse_config(raw)
    if not _is_int(value):
        raise ValueError(f"var seed must be an integer, got {value!r}")
    return value


def replicas_var(raw) -> Optional[int]:
    """None: every template's own `replica` option."""
    value = parse_config(raw)
    if value is not None and (not _is_int(value) or value < 1):
        raise ValueError(f"var replicas must be an integer >= 1 (or null for the templates' own), got {value!r}")
    return value


def domains_var(raw, known: Optional[Iterable[str]] = None) -> Optional[list[str]]:
    """None: every domain. One name or a non-empty list of names, each among `known` when given."""
    value = parse_config(raw)
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(d, str) and d for d in value):
        raise ValueError(f"var domains must be a non-empty list of domain names (or null for all), got {value!r}")
    if known is not None:
        known = sorted(set(known))
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise ValueError(f"var domains names unknown domain(s) {unknown}; known: {known}")
    return list(value)


def bool_var(name: str, raw, default: bool) -> bool:
    value = parse_config(raw)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValueError(f"var {name} must be true or false, got {value!r}")
    return value


def share_var(name: str, raw, default: float) -> float:
    """A fraction in [0, 1]."""
    value = parse_config(raw)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"var {name} must be a number between 0 and 1 (0.05 is 5 %), got {value!r}")
    return float(value)


def variety_var(raw) -> str:
    """var question_variety: one of the question generator's varieties (default `paper`)."""
    from ..questions.generate import QUESTION_VARIETIES

    value = parse_config(raw)
    if value is None:
        return "paper"
    if value not in QUESTION_VARIETIES:
        raise ValueError(f"var question_variety must be one of {', '.join(QUESTION_VARIETIES)}, got {value!r}")
    return value


def question_suites_var(raw) -> tuple[str, ...]:
    """var question_suites: the question suites of the build (`hctqa`: Table III; `treb`: TReB's computation
    and naming families); default `[hctqa]`."""
    from ..questions.families import DEFAULT_SUITES, suite_names

    suites = suite_names()

    value = parse_config(raw)
    if value is None:
        return DEFAULT_SUITES
    if isinstance(value, str):
        value = [value]
    if (not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value)
            or set(value) - set(suites)):
        raise ValueError(f"var question_suites must be a non-empty list of {sorted(suites)}, got {value!r}")
    return tuple(n for n in suites if n in value)


def scale_options(replicas, domains) -> dict:
    return {"replicas": replicas_var(replicas), "domains": domains_var(domains)}


def counterfactuals_var(raw) -> int:
    """var layout_counterfactuals: how many relational tables get a set of layout counterfactuals (0, the
    default: none; generator_py.counterfactuals)."""
    value = parse_config(raw)
    if value is None:
        return 0
    if not _is_int(value) or value < 0:
        raise ValueError(f"var layout_counterfactuals must be an integer >= 0 (the number of counterfactual sets; "
                         f"0 or null for none), got {value!r}")
    return value


def paraphrases_var(raw) -> bool:
    """var paraphrase_sets: every question also in each of its template's other phrasings (default false)."""
    return bool_var("paraphrase_sets", raw, False)


def seed_variance_seeds_var(raw) -> list[int]:
    """var seed_variance_seeds: the seeds whose builds analysis_seed_variance compares (default: none). A list
    of at least two distinct integers."""
    value = parse_config(raw)
    if value is None:
        return []
    if (not isinstance(value, (list, tuple)) or len(value) < 2 or not all(_is_int(v) for v in value)
            or len(set(value)) != len(value)):
        raise ValueError(f"var seed_variance_seeds must be a list of two or more distinct integer seeds "
                         f"(e.g. [1, 2, 3]), got {value!r}")
    return list(value)
