"""The question families of the build.

`FAMILIES`: the 15 SQL templates of the paper's Table III (suite `hctqa`), registered in template order
(generation draws them in this order, so the order is part of a seed's outcome). `TREB_FAMILIES`: TReB's
computation and naming skills (suite `treb`, computation.py and naming.py), drawn after them. Var
`question_suites` picks the suites of a build (`families_for_suites`); the default build is `hctqa` alone.
"""
from . import aggregates, computation, grouped, lookup, naming, ranking, shown_aggregate, value_condition
from .draws import QUESTION_VARIETIES
from .registry import METADATA_COLUMNS, FamilyRegistry, QuestionFamily, question_id, sql_metadata

FAMILIES = FamilyRegistry(sorted(
    lookup.FAMILIES + aggregates.FAMILIES + shown_aggregate.FAMILIES + grouped.FAMILIES + ranking.FAMILIES
    + value_condition.FAMILIES, key=lambda f: f.template_id))
TREB_FAMILIES = FamilyRegistry(computation.FAMILIES + naming.FAMILIES)
SUITES = {"hctqa": FAMILIES, "treb": TREB_FAMILIES}
DEFAULT_SUITES = ("hctqa",)
# every family any suite has (the NL seeds may hold phrasings for all of them)
ALL_FAMILIES = FamilyRegistry([f for reg in SUITES.values() for f in reg])


def families_for_suites(suites) -> FamilyRegistry:
    """The families of the named suites, in suite order (hctqa first, so its draws never change)."""
    unknown = sorted(set(suites) - set(SUITES))
    if unknown or not suites:
        raise ValueError(f"var question_suites must be a non-empty list of {sorted(SUITES)}, got {list(suites)!r}")
    return FamilyRegistry([f for name, reg in SUITES.items() if name in suites for f in reg])


__all__ = ["ALL_FAMILIES", "DEFAULT_SUITES", "FAMILIES", "METADATA_COLUMNS", "QUESTION_VARIETIES", "SUITES",
           "TREB_FAMILIES", "FamilyRegistry", "QuestionFamily", "families_for_suites", "question_id",
           "sql_metadata"]
