"""Data types of question generation: a question instance, a domain's NL templates, errors."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class Measure:
    """What the vocabulary says about a table template's measure (seeds domain_value_ranges, domain_attributes).

    `aggregations`: the functions a question may apply to it; `non_additive`: attribute names whose values
    split it into parts that do not add up, so no sum or average spans two of their values; `low`, `high`:
    its range; `knowledge`: what the seeds say of its domain beyond the table (generator_py.vocabulary.knowledge:
    every label with its ancestors, groupings, the unit and declared range), given to a build with TReB's
    families, else None.
    """

    aggregations: tuple[str, ...] = ("sum", "avg", "min", "max")
    non_additive: frozenset[str] = frozenset()
    # the measure's range (domain_value_ranges min and max; None: unbounded), which a moved value stays inside
    low: Optional[float] = None
    high: Optional[float] = None
    knowledge: Optional[Any] = None


class NLTemplateError(ValueError):
    """A natural-language template seed row is invalid (message names file, row and problem)."""


@dataclass(frozen=True)
class QuestionInstance:
    question_id: str  # families.question_id: f"{table_id}--{family}" (variant 0), f"{table_id}--{family}-{variant}"
    table_id: str
    template_id: Optional[int]  # 1..15 for the families of Table III of the paper, None for other families
    phrasing: int  # index of the NL phrasing used (the `phrasing` column of seeds/nl_templates.csv)
    sql: Optional[str]  # DuckDB SQL over the canonical relation `T` (None for naming families)
    question: str  # natural-language question
    spec: dict[str, Any]  # JSON-serialisable query spec (see generator_py/questions/spec.py)
    metadata: dict[str, Any]  # template-level columns (METADATA_COLUMNS)
    properties: dict[str, Any]  # the 36 release question properties (properties.QUESTION_PROPERTY_COLUMNS)
    answer_rows: list[list[Any]] = field(default_factory=list)  # Python evaluation of the spec
    # every literal of the SQL's WHERE clause (sub-query included) and its LIMIT (query_facts.py),
    # canonical text (strings as they are, numbers through format_number, negatives signed); all are in `question`
    sql_literals: list[str] = field(default_factory=list)
    family: str = ""  # id of the question family that drew it (families.FAMILIES)
    family_variant: int = 0  # its number among the questions of that family on this table (0 = first)
    # how the answer is defined: "sql" = the spec's query evaluated on the tables; "computed" / "statistical" /
    # "naming" = the family's own computation (families/computed.py), whose SQL text (None for statistical and
    # naming) states it
    kind: str = "sql"
    tables: tuple[str, ...] = ()  # the tables the question reads, its own first (two: the pair's partner second)
    table_roles: tuple[str, ...] = ()  # per table read: "answer" or "condition" (the family's table_roles)
    table_conditions: tuple = ()  # per table read: the conditions ({attribute, values}) the question puts on it
    choices: Optional[tuple[str, ...]] = None  # the options of a two-option item, None for open questions
    label: Optional[str] = None  # the right option among `choices`
    suite: str = "hctqa"  # the benchmark of its family: "hctqa" (Table III) or "treb" (families/computed.py)
    answer_type: str = "values"  # "values": compared as values; "text": scored by text metrics
    # the TReB skill and subtask its family declares (None outside TReB's map) and the metric reporting it
    treb_skill: Optional[str] = None
    treb_subtask: Optional[str] = None
    treb_metric: str = "exact_match"
    hides_caption: bool = False  # its table renderings leave out the caption (title naming)
    blank_cell: Optional[tuple[int, int]] = None  # (grid_row, grid_col) shown empty in its renderings
    # a further change of its table's grid its renderings show (generator_py.render.grid_changes), None for none
    grid_change: Optional[dict[str, Any]] = None
    steps: Optional[list[dict[str, Any]]] = None  # a multi-step question's steps: operation and result, in order
    # the same question in each other phrasing of its template: ((phrasing, text), ...) when asked for
    paraphrases: tuple[tuple[int, str], ...] = ()
