"""Names shared by the analysis modules: property columns and their hierarchy (metrics: evaluation_py.scoring.metrics).

The table-property names follow ``docs/properties.md`` (23 booleans) and live in
``generator_py.release.properties``.
"""

from __future__ import annotations

from generator_py.release.properties import (  # TABLE_PROPERTY_COLUMNS re-exported for the analysis modules
    QUESTION_PROPERTIES,
    TABLE_PROPERTIES,
    TABLE_PROPERTY_COLUMNS,
    release_name_to_column,
)

POOLED: str = "__pooled__"

def reference_backends() -> tuple[str, ...]:
    """The backends that answer with the ground truth (`Backend.is_reference`: the oracle): a check of the
    whole chain, not a model under test, so they enter no fit across or within models."""
    from ..backends import BACKENDS  # late: the backends load their clients

    return tuple(name for name, cls in BACKENDS.items() if cls.is_reference)


# Parent flag -> its children (a child implies its parent).
TABLE_PARENTS: dict[str, tuple[str, ...]] = {
    "column_nesting": (
        "balanced_column_nesting",
        "unbalanced_column_nesting",
        "symmetric_column_nesting",
        "asymmetric_column_nesting",
    ),
    "row_nesting": (
        "balanced_row_nesting",
        "unbalanced_row_nesting",
        "symmetric_row_nesting",
        "asymmetric_row_nesting",
    ),
    "column_aggregation": (
        "global_column_aggregation",
        "local_column_aggregation",
        "explicit_column_aggregation",
        "implicit_column_aggregation",
    ),
    "row_aggregation": (
        "global_row_aggregation",
        "local_row_aggregation",
        "explicit_row_aggregation",
        "implicit_row_aggregation",
    ),
}

# Exhaustive, mutually exclusive splits of a parent: (parent, member kept, member kept).
# Within one parent, the first split keeps both members (together they stand for the
# parent, which is dropped); every later split of the same parent keeps only its
# second member, the first one becomes the reference level.
TABLE_EXCLUSIVE_SPLITS: tuple[tuple[str, str, str], ...] = (
    ("column_nesting", "balanced_column_nesting", "unbalanced_column_nesting"),
    ("column_nesting", "symmetric_column_nesting", "asymmetric_column_nesting"),
    ("row_nesting", "balanced_row_nesting", "unbalanced_row_nesting"),
    ("row_nesting", "symmetric_row_nesting", "asymmetric_row_nesting"),
)

TABLE_BASELINE: str = "standard_relational_table"

TABLE_LEAF_PROPERTIES: tuple[str, ...] = tuple(
    c for c in TABLE_PROPERTY_COLUMNS if c not in TABLE_PARENTS
)

# The main properties (the paper's Figure 3(a) counts tables per combination of these): the four
# parents and the two properties without children. Every table with none of them is standard relational.
TABLE_MAIN_PROPERTIES: tuple[str, ...] = (*TABLE_PARENTS, "row_group_label", "split_header_cell")

# Question properties used by the regression (kind='question'): name -> how it is derived.
#   ('bool', column)            the boolean column itself
#   ('present', column)         numeric column, true when not null and > 0  (top-k)
#   ('count', column)           numeric column, null read as 0               (number of conditions)
#   ('log2p1', column)          log2(1 + value)                              (answer size)
QUESTION_REGRESSION_PROPERTIES: dict[str, tuple[str, str]] = {
    "aggregation": ("bool", "aggregation"),
    "aggregation_grouping_local": ("bool", "aggregation_grouping_local"),
    "aggregation_grouping_global": ("bool", "aggregation_grouping_global"),
    "rank": ("bool", "rank"),
    "rank_report_top": ("present", "rank_report_top"),
    "row_filter_condition_type_expression": ("bool", "row_filter_condition_type_expression"),
    "row_filter_num_of_conditions": ("count", "row_filter_num_of_conditions"),
    "log2_answer_n_values": ("log2p1", "answer_n_values"),
}

QUESTION_PROPERTY_LABELS: dict[str, str] = {
    "aggregation": "aggregation",
    "aggregation_grouping_local": "local grouping",
    "aggregation_grouping_global": "global grouping",
    "rank": "ordering (rank)",
    "rank_report_top": "top-k",
    "row_filter_condition_type_expression": "expression on a column",
    "row_filter_num_of_conditions": "number of conditions",
    "log2_answer_n_values": "answer size (log2(1+n))",
    "row_filter": "row filter",
    "yes_no": "yes/no",
    "returned_columns_project_on_expression": "projection on expression",
}

# Readable names for figures: the release's own names of the table properties (our column names are
# derived from them), the short labels above for the question properties the analyses use, and the
# release names of the other question properties.
_TABLE_LABELS: dict[str, str] = {col: name for name, col in TABLE_PROPERTIES.items()}
_TABLE_LABELS["row_nesting"] = "Row Nesting"
_RELEASE_QUESTION_LABELS: dict[str, str] = {release_name_to_column(n): n for n in QUESTION_PROPERTIES}


def property_label(name: str) -> str:
    """A readable label for a table or question property column (the name itself, with spaces for
    underscores, when it is not a known property)."""
    short = QUESTION_PROPERTY_LABELS.get(name)
    if short:
        return short[0].upper() + short[1:]
    return _TABLE_LABELS.get(name) or _RELEASE_QUESTION_LABELS.get(name) or str(name).replace("_", " ")


# Question properties shown in the Figure 9(a)-style breakdown (those present are used).
QUESTION_BREAKDOWN_PROPERTIES: tuple[str, ...] = (
    "row_filter",
    "yes_no",
    "rank",
    "rank_report_top",
    "aggregation",
    "aggregation_grouping_local",
    "aggregation_grouping_global",
    "row_filter_condition_type_expression",
    "returned_columns_project_on_expression",
)

AGGREGATION_TYPES: tuple[str, ...] = ("min", "max", "sum", "avg", "count")


def aggregation_type_column(agg: str) -> str:
    return f"aggregation_aggregation_type_{agg}"


# The 15 SQL question templates of the paper's Table III (generator_py/questions/families), named by what
# they ask; every figure and table shows a template as `q05 aggregate shown in the table`.
TEMPLATE_NAMES: dict[int, str] = {
    1: "one cell",
    2: "cells of several rows",
    3: "cells of several columns",
    4: "aggregate along one row",
    5: "aggregate shown in the table",
    6: "cells of several rows and columns",
    7: "aggregate along one column",
    8: "aggregates per column",
    9: "aggregate per row group",
    10: "aggregate per row group, group named",
    11: "aggregate per row group and column",
    12: "top-k values",
    13: "all values sorted",
    14: "rows passing a threshold",
    15: "values of rows passing a threshold",
}


def template_label(template) -> str:
    """``5``, ``5.0``, ``'5'`` or the family id ``'q05'`` -> ``'q05 aggregate shown in the table'``; another
    family (TReB's) as it is."""
    text = str(template).strip()
    if text.lower().startswith("q") and text[1:].isdigit():
        text = text[1:]
    try:
        number = float(text)
    except ValueError:
        return str(template)
    if number.is_integer() and int(number) in TEMPLATE_NAMES:
        return f"q{int(number):02d} {TEMPLATE_NAMES[int(number)]}"
    return str(template)
