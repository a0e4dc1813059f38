import json

import pytest

from generator_py.release.properties import (
    NUMERIC_QUESTION_PROPERTIES,
    QUESTION_PROPERTIES,
    QUESTION_PROPERTY_COLUMNS,
    TABLE_PROPERTIES,
    TABLE_PROPERTY_COLUMNS,
    parse_release_number,
    question_properties_from_release,
    release_name_to_column,
    table_properties_from_release,
)


def test_table_property_lists():
    assert len(TABLE_PROPERTIES) == 22
    assert len(TABLE_PROPERTY_COLUMNS) == 23 and len(set(TABLE_PROPERTY_COLUMNS)) == 23
    assert set(TABLE_PROPERTIES.values()) == set(TABLE_PROPERTY_COLUMNS) - {"row_nesting"}
    assert TABLE_PROPERTIES["Multi Level Column"] == "column_nesting"
    assert TABLE_PROPERTIES["Local Column-Group Aggregation"] == "local_column_aggregation"
    assert TABLE_PROPERTIES["Explicit Row Aggregation Terms"] == "explicit_row_aggregation"
    assert TABLE_PROPERTY_COLUMNS[0] == "column_nesting" and TABLE_PROPERTY_COLUMNS[-1] == "standard_relational_table"


def test_question_property_names():
    assert len(QUESTION_PROPERTIES) == 36 and len(set(QUESTION_PROPERTY_COLUMNS)) == 36
    assert release_name_to_column("Row Filter Condition Type Lookup") == "row_filter_condition_type_lookup"
    assert release_name_to_column("Yes/No") == "yes_no"
    assert release_name_to_column("Yes/No Scope Single") == "yes_no_scope_single"
    assert release_name_to_column(" Local Column-Group Aggregation ") == "local_column_group_aggregation"
    assert set(NUMERIC_QUESTION_PROPERTIES) <= set(QUESTION_PROPERTIES)
    assert len(NUMERIC_QUESTION_PROPERTIES) == 6


@pytest.mark.parametrize(
    "value,expected",
    [("1", 1), (1, 1), ("", None), (False, None), (None, None), ("0", 0), (0, 0), (" 2 ", 2), ("3.0", 3), (2.0, 2)],
)
def test_parse_release_number(value, expected):
    assert parse_release_number(value) == expected


@pytest.mark.parametrize("value", ["two", 1.5, True, [1]])
def test_parse_release_number_rejects(value):
    with pytest.raises(ValueError):
        parse_release_number(value)


def test_names_match_the_sample(real_sample_dir):
    data = json.loads((real_sample_dir / "realWorld_HCT_qaps.sample.json").read_text())
    for table in data:
        keys = set(table["table_info"]["table_properties"])
        assert set(TABLE_PROPERTIES) <= keys <= set(TABLE_PROPERTIES) | {"Row Nesting"}
        for q in table["questions"]:
            qkeys = list(q["question_properties"])
            # Every key the release uses is known, in our order ("Rank Report Top" is sometimes absent).
            assert qkeys == [k for k in QUESTION_PROPERTIES if k in qkeys]
            assert set(QUESTION_PROPERTIES) - set(qkeys) <= {"Rank Report Top"}


def test_row_nesting_is_or_of_sub_properties():
    props = {name: False for name in TABLE_PROPERTIES}
    assert table_properties_from_release(props)["row_nesting"] is False
    props["Unbalanced Row Nesting"] = True
    assert table_properties_from_release(props)["row_nesting"] is True
    props = {name: False for name in TABLE_PROPERTIES}
    props["Row Nesting"] = True
    assert table_properties_from_release(props)["row_nesting"] is True


def test_question_properties_missing_numbers_are_null():
    out = question_properties_from_release({"Row Filter": True, "Rank Report Top": "3"})
    assert out["row_filter"] is True and out["rank_report_top"] == 3
    assert out["aggregation_num_of_aggregations"] is None and out["yes_no"] is False
