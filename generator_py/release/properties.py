"""The HCT-QA release's property names, and how their values are read and written.

The release (the public HCT-QA `qaps` JSON) names properties in words ("Multi Level Column",
"Row Filter Num Of Conditions"); the project stores them as snake_case columns. The table
property columns follow ``docs/properties.md``; the question property columns follow
``release_name_to_column`` (docs/contracts.md). The one place these names are listed: the
import (`qaps_read`), the export (`qaps_write`) and the analyses read them from here.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Optional

# Release table property name -> our column name (the 22 keys every release table carries).
# The release sometimes also carries "Row Nesting"; see ROW_NESTING_RELEASE_NAME.
TABLE_PROPERTIES: "OrderedDict[str, str]" = OrderedDict(
    [
        ("Multi Level Column", "column_nesting"),
        ("Balanced Multi Level Column", "balanced_column_nesting"),
        ("Unbalanced Multi Level Column", "unbalanced_column_nesting"),
        ("Symmetric Multi Level Column", "symmetric_column_nesting"),
        ("Asymmetric Multi Level Column", "asymmetric_column_nesting"),
        ("Balanced Row Nesting", "balanced_row_nesting"),
        ("Unbalanced Row Nesting", "unbalanced_row_nesting"),
        ("Symmetric Row Nesting", "symmetric_row_nesting"),
        ("Asymmetric Row Nesting", "asymmetric_row_nesting"),
        ("Column Aggregation", "column_aggregation"),
        ("Global Column Aggregation", "global_column_aggregation"),
        ("Local Column-Group Aggregation", "local_column_aggregation"),
        ("Explicit Column Aggregation Terms", "explicit_column_aggregation"),
        ("Implicit Column Aggregation Terms", "implicit_column_aggregation"),
        ("Row Aggregation", "row_aggregation"),
        ("Global Row Aggregation", "global_row_aggregation"),
        ("Local Row-Group Aggregation", "local_row_aggregation"),
        ("Explicit Row Aggregation Terms", "explicit_row_aggregation"),
        ("Implicit Row Aggregation Terms", "implicit_row_aggregation"),
        ("Row Group Label", "row_group_label"),
        ("Split Header Cell", "split_header_cell"),
        ("Standard Relational Table", "standard_relational_table"),
    ]
)

# Present on only some release tables; our `row_nesting` is the OR of this key (when present)
# and the four row-nesting sub-properties.
ROW_NESTING_RELEASE_NAME = "Row Nesting"
ROW_NESTING_SUB_PROPERTIES = (
    "Balanced Row Nesting",
    "Unbalanced Row Nesting",
    "Symmetric Row Nesting",
    "Asymmetric Row Nesting",
)

# The 23 table property columns, in the fixed order of the marts.
TABLE_PROPERTY_COLUMNS: tuple[str, ...] = (
    "column_nesting",
    "balanced_column_nesting",
    "unbalanced_column_nesting",
    "symmetric_column_nesting",
    "asymmetric_column_nesting",
    "row_nesting",
    "balanced_row_nesting",
    "unbalanced_row_nesting",
    "symmetric_row_nesting",
    "asymmetric_row_nesting",
    "column_aggregation",
    "global_column_aggregation",
    "local_column_aggregation",
    "explicit_column_aggregation",
    "implicit_column_aggregation",
    "row_aggregation",
    "global_row_aggregation",
    "local_row_aggregation",
    "explicit_row_aggregation",
    "implicit_row_aggregation",
    "row_group_label",
    "split_header_cell",
    "standard_relational_table",
)

# The 36 question properties of the release, in the release's order.
QUESTION_PROPERTIES: tuple[str, ...] = (
    "Row Filter",
    "Row Filter Condition Type Lookup",
    "Row Filter Condition Type Expression",
    "Row Filter Involved Columns Single",
    "Row Filter Involved Columns Multiple",
    "Row Filter Max Depth Of Involved Columns",
    "Row Filter Retained Rows Single",
    "Row Filter Retained Rows Multiple",
    "Row Filter Num Of Conditions",
    "Returned Columns",
    "Returned Columns Project On Plain",
    "Returned Columns Project On Expression",
    "Returned Columns Max Depth Of Involved Columns",
    "Returned Columns Expression In Table Present",
    "Returned Columns Expression In Table Not Present",
    "Returned Columns Num Of Output Columns",
    "Yes/No",
    "Yes/No Scope Single",
    "Yes/No Scope Multiple",
    "Aggregation",
    "Aggregation Aggregation On Plain",
    "Aggregation Aggregation On Expression",
    "Aggregation Aggregation Type Min",
    "Aggregation Aggregation Type Max",
    "Aggregation Aggregation Type Count",
    "Aggregation Aggregation Type Sum",
    "Aggregation Aggregation Type Avg",
    "Aggregation Grouping Local",
    "Aggregation Grouping Global",
    "Aggregation Aggregation In Table Present",
    "Aggregation Aggregation In Table Not Present",
    "Aggregation Num Of Aggregations",
    "Rank",
    "Rank Rank On Plain",
    "Rank Rank On Expression",
    "Rank Report Top",
)

# Release names of the question properties whose values are numbers (nullable integers).
NUMERIC_QUESTION_PROPERTIES: tuple[str, ...] = (
    "Row Filter Max Depth Of Involved Columns",
    "Row Filter Num Of Conditions",
    "Returned Columns Max Depth Of Involved Columns",
    "Returned Columns Num Of Output Columns",
    "Aggregation Num Of Aggregations",
    "Rank Report Top",
)

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def release_name_to_column(name: str) -> str:
    """Release property name -> column name: lower-cased, runs outside [a-z0-9] -> '_', trimmed '_'."""
    return _NON_ALNUM.sub("_", name.lower()).strip("_")


QUESTION_PROPERTY_COLUMNS: tuple[str, ...] = tuple(release_name_to_column(n) for n in QUESTION_PROPERTIES)
NUMERIC_QUESTION_PROPERTY_COLUMNS: tuple[str, ...] = tuple(
    release_name_to_column(n) for n in NUMERIC_QUESTION_PROPERTIES
)


# Release table property names in the order the release writes them (the order of
# `realWorld_HCT_qaps.json`); "Row Nesting" is present on only some release tables there, the
# export always writes it (it is our `row_nesting` column).
RELEASE_TABLE_PROPERTY_ORDER: tuple[str, ...] = (
    "Standard Relational Table",
    "Multi Level Column",
    "Balanced Multi Level Column",
    "Symmetric Multi Level Column",
    "Unbalanced Multi Level Column",
    "Asymmetric Multi Level Column",
    "Column Aggregation",
    "Global Column Aggregation",
    "Local Column-Group Aggregation",
    "Explicit Column Aggregation Terms",
    "Implicit Column Aggregation Terms",
    ROW_NESTING_RELEASE_NAME,
    "Balanced Row Nesting",
    "Symmetric Row Nesting",
    "Unbalanced Row Nesting",
    "Asymmetric Row Nesting",
    "Row Aggregation",
    "Global Row Aggregation",
    "Local Row-Group Aggregation",
    "Explicit Row Aggregation Terms",
    "Implicit Row Aggregation Terms",
    "Split Header Cell",
    "Row Group Label",
)

# Release table property name -> our column, in release order.
RELEASE_TABLE_PROPERTY_COLUMNS: dict[str, str] = {
    name: ("row_nesting" if name == ROW_NESTING_RELEASE_NAME else TABLE_PROPERTIES[name])
    for name in RELEASE_TABLE_PROPERTY_ORDER
}

# Release question property name -> our column, in release order.
RELEASE_QUESTION_PROPERTY_COLUMNS: dict[str, str] = dict(zip(QUESTION_PROPERTIES, QUESTION_PROPERTY_COLUMNS))


def parse_release_number(value: Any) -> Optional[int]:
    """Read a numeric release property: "1" -> 1, 1 -> 1, "" / False / None -> None.

    Raises ValueError for anything else that is not an integer (e.g. "two", 1.5, True).
    """
    if value is None or value is False:
        return None
    if value is True:
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value:  # NaN
            return None
        if value.is_integer():
            return int(value)
        raise ValueError(f"not an integer: {value!r}")
    if isinstance(value, str):
        text = value.strip()
        if text == "" or text.lower() in ("false", "none", "null"):
            return None
        try:
            return int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                raise ValueError(f"not a number: {value!r}") from None
            if number.is_integer():
                return int(number)
            raise ValueError(f"not an integer: {value!r}") from None
    raise ValueError(f"not a number: {value!r}")


def parse_release_bool(value: Any) -> bool:
    """Read a boolean release property (booleans; tolerates "true"/"false"/"" and 0/1)."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("true", "1", "yes"):
            return True
        if text in ("false", "0", "no", ""):
            return False
    raise ValueError(f"not a boolean: {value!r}")


def table_properties_from_release(props: dict) -> dict[str, bool]:
    """Release `table_properties` dict -> {column: bool} over TABLE_PROPERTY_COLUMNS.

    A key missing from the release reads as False. `row_nesting` is the OR of the release's
    optional "Row Nesting" and the four row-nesting sub-properties.
    """
    out = {column: False for column in TABLE_PROPERTY_COLUMNS}
    for release_name, column in TABLE_PROPERTIES.items():
        out[column] = parse_release_bool(props.get(release_name, False))
    out["row_nesting"] = parse_release_bool(props.get(ROW_NESTING_RELEASE_NAME, False)) or any(
        out[TABLE_PROPERTIES[n]] for n in ROW_NESTING_SUB_PROPERTIES
    )
    return out


def question_properties_from_release(props: dict) -> dict[str, Any]:
    """Release `question_properties` dict -> {column: bool | int | None} over QUESTION_PROPERTY_COLUMNS.

    Missing boolean keys read as False, missing numeric keys as None.
    """
    out: dict[str, Any] = {}
    numeric = set(NUMERIC_QUESTION_PROPERTIES)
    for release_name in QUESTION_PROPERTIES:
        column = release_name_to_column(release_name)
        value = props.get(release_name)
        if release_name in numeric:
            out[column] = parse_release_number(value)
        else:
            out[column] = parse_release_bool(value)
    return out

