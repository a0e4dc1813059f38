import json
from pathlib import Path

import pandas as pd
import pytest

from generator_py.answers.ground_truth import ground_truth
from generator_py.release.relational_csv import read_release_csv


def _parse(gt):
    rows = []
    for part in gt.split(" || "):
        vals = []
        for v in part.strip("{}").split(" | "):
            try:
                vals.append(f"{round(float(v), 2):.2f}")
            except ValueError:
                vals.append(v)
        rows.append(tuple(vals))
    return rows


@pytest.fixture(scope="module")
def sample_files(synthetic_sample_dir) -> list[Path]:
    files = sorted(synthetic_sample_dir.glob("*_QandA.json"))
    assert len(files) == 3
    return files


@pytest.mark.parametrize("rounding", ["half_up", "half_even"])
def test_reference_sample(sample_files, rounding):
    for path in sample_files:
        data = json.loads(path.read_text(encoding="utf-8"))
        frame = read_release_csv(path.with_name(data["filename"]))
        for q in data["questions"]:
            got, want = _parse(ground_truth(frame, q["sql"], rounding=rounding)), _parse(q["sqlResult"])
            if "ORDER BY" in q["sql"].upper():
                assert got == want, (path.name, q["sql"])
            else:
                assert sorted(got) == sorted(want), (path.name, q["sql"])


def test_read_release_csv_drops_the_duplicated_header(synthetic_sample_dir):
    path = synthetic_sample_dir / "Number_of_accidents_set2_3_DB.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == lines[1]  # the sample's defect this loader handles
    frame = read_release_csv(path)
    assert list(frame.columns) == lines[0].split(",")
    assert len(frame) == len(lines) - 2
    assert frame["Value"].dtype == "float64" and frame["Gender"].map(type).eq(str).all()
    assert "display_names" not in frame.attrs


def test_read_release_csv_two_header_lines(tmp_path):
    path = tmp_path / "t_DB.csv"
    path.write_text("Type of event,Year of event,Number of accidents\nEvent_Type,Year,Value\n"
                    "Fire,2020,3\nFire,2021,\nFlood,2020,4.5\n", encoding="utf-8")
    frame = read_release_csv(path)
    assert list(frame.columns) == ["Event_Type", "Year", "Value"]
    assert frame.attrs["display_names"] == {"Event_Type": "Type of event", "Year": "Year of event",
                                            "Value": "Number of accidents"}
    assert frame["Year"].tolist() == ["2020", "2021", "2020"]  # the release's SQL compares Year = '2020'
    assert ground_truth(frame, "SELECT SUM(Value) FROM DBdata WHERE Year = '2020'") == "{7.5}"
    assert ground_truth(frame, "SELECT COUNT(Value) FROM DBdata WHERE Event_Type = 'Fire'") == "{1}"


def test_read_release_csv_single_header_and_bom(tmp_path):
    path = tmp_path / "t_DB.csv"
    path.write_text("\ufeffA,Value\nx,1\n\ny,2\n", encoding="utf-8")
    frame = read_release_csv(path)
    assert list(frame.columns) == ["A", "Value"] and frame["A"].tolist() == ["x", "y"]


@pytest.mark.parametrize("content,needle", [
    ("", "empty file"),
    ("A,Value\nx,1,2\n", ":2: 3 fields"),
    ("A,Value\nx,1\ny,many\n", ":3: Value 'many' is not a number"),
    ("A,B\nx,1\n", "one 'Value' column"),
    ("A,A,Value\nx,y,1\n", "repeated column names"),
    ("A,Value\nAlpha,Beta,Gamma\nx,1\n", ":2: header line has 3 columns"),
])
def test_read_release_csv_bad_input(tmp_path, content, needle):
    path = tmp_path / "bad_DB.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match="bad_DB.csv") as info:
        read_release_csv(path)
    assert needle in str(info.value)


def test_read_release_csv_missing_file(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        read_release_csv(tmp_path / "nope_DB.csv")


@pytest.mark.parametrize("values,half_up,half_even", [
    ([1.0, 1.25], "{1.13}", "{1.12}"),       # mean 1.125: an exact tie, the 2 before it is even
    ([1.0, 1.27], "{1.14}", "{1.14}"),       # mean 1.135: the 3 before it is odd, so both round up
    ([-1.0, -1.25], "{-1.13}", "{-1.12}"),   # ties of negatives: away from zero / to even
    ([2.0, 2.5], "{2.25}", "{2.25}"),        # no tie at the second decimal
    ([0.004, 0.006], "{0.01}", "{0}"),       # mean 0.005
])
def test_rounding_of_ties(values, half_up, half_even):
    frame = pd.DataFrame({"A": ["x", "y"], "Value": values})
    sql = "SELECT AVG(Value) FROM T"
    assert ground_truth(frame, sql) == half_up
    assert ground_truth(frame, sql, rounding="half_up") == half_up
    assert ground_truth(frame, sql, rounding="half_even") == half_even


def test_unknown_rounding_is_rejected():
    with pytest.raises(ValueError, match="half_down"):
        ground_truth(pd.DataFrame({"A": ["x"], "Value": [1.0]}), "SELECT Value FROM T", rounding="half_down")


def test_table_name_is_taken_from_sql_and_nulls_dropped():
    frame = pd.DataFrame({"A": ["x", "y", None], "B": [1, 2, 3], "Value": [1.0, 2.5, 4.0]})
    assert ground_truth(frame, "SELECT A, Value FROM T ORDER BY Value") == "{x | 1} || {y | 2.5} || {4}"
    assert ground_truth(frame, "SELECT avg(Value) FROM DBdata WHERE B IN ('1','2')") == "{1.75}"


@pytest.mark.parametrize("sql", ["SELECT 1", "DELETE FROM T", "SELECT a FROM T; SELECT a FROM T",
                                 "SELECT * FROM T JOIN U ON T.a = U.a", "SELECT a FROM T UNION SELECT a FROM T",
                                 "SELECT FROM WHERE ((("])
def test_rejects_other_sql(sql):
    with pytest.raises(ValueError, match="ground_truth"):
        ground_truth(pd.DataFrame({"a": ["x"], "Value": [1.0]}), sql)
