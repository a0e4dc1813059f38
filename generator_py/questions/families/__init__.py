"""The question families of the build, in one registry.

`ALL_FAMILIES` holds every family: those of each module of this package (its `FAMILIES` tuple; every module
is imported, so a new family needs no edit here), ordered by NL template id (generation draws them in this
order, so the order is part of a seed's outcome), then those plugins declare under the `hctqa.families`
entry point group. A family declares its `suite`: the 15 SQL templates of the paper's Table III are suite
`hctqa` (NL ids 1-15), TReB's computation and naming skills suite `treb` (computed.py). Var
`question_suites` picks the suites of a build (`families_for_suites`); the default build is `hctqa` alone.
"""
import importlib
import pkgutil

from .draws import QUESTION_VARIETIES
from .registry import METADATA_COLUMNS, FamilyRegistry, QuestionFamily, question_id, sql_metadata

DEFAULT_SUITES = ("hctqa",)


def _package_families() -> list[QuestionFamily]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        found.extend(getattr(importlib.import_module(f"{__name__}.{info.name}"), "FAMILIES", ()))
    return sorted(found, key=lambda f: (f.nl.template_id, f.family_id))


ALL_FAMILIES = FamilyRegistry(_package_families(), entry_point_group="hctqa.families")


def suite_names() -> tuple[str, ...]:
    """The suites the registered families declare, in family order (hctqa first)."""
    return tuple(dict.fromkeys(f.suite for f in ALL_FAMILIES))


def families_for_suites(suites) -> FamilyRegistry:
    """The families of the named suites, in family order."""
    known = suite_names()
    unknown = sorted(set(suites) - set(known))
    if unknown or not suites:
        raise ValueError(f"var question_suites must be a non-empty list of {sorted(known)}, got {list(suites)!r}")
    return ALL_FAMILIES.subset(lambda f: f.suite in suites)


FAMILIES = families_for_suites(DEFAULT_SUITES)
TREB_FAMILIES = families_for_suites(("treb",))

__all__ = ["ALL_FAMILIES", "DEFAULT_SUITES", "FAMILIES", "METADATA_COLUMNS", "QUESTION_VARIETIES",
           "TREB_FAMILIES", "FamilyRegistry", "QuestionFamily", "families_for_suites", "question_id",
           "sql_metadata", "suite_names"]
