"""The question families of the build: the 15 SQL templates of the paper's Table III, registered in
template order (generation draws them in this order, so the order is part of a seed's outcome)."""
from . import aggregates, grouped, lookup, ranking, shown_aggregate, value_condition
from .draws import QUESTION_VARIETIES
from .registry import METADATA_COLUMNS, FamilyRegistry, QuestionFamily, question_id, sql_metadata

FAMILIES = FamilyRegistry(sorted(
    lookup.FAMILIES + aggregates.FAMILIES + shown_aggregate.FAMILIES + grouped.FAMILIES + ranking.FAMILIES
    + value_condition.FAMILIES, key=lambda f: f.template_id))

__all__ = ["FAMILIES", "METADATA_COLUMNS", "QUESTION_VARIETIES", "FamilyRegistry", "QuestionFamily", "question_id",
           "sql_metadata"]
