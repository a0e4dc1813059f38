import json

import pandas as pd
import pytest

from generator_py.ground_truth import ground_truth

# The three instances of the release's synthetic sample (HCTQA_REFERENCE_DIR/hctqa-synthetic-sample).
SETS = ["Number_of_accidents_set2_3", "Number_of_accidents_set150_5", "Number_of_accidents_set321_2"]


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


def test_reference_sample_is_there(synthetic_sample_dir):
    assert sorted(p.name for p in synthetic_sample_dir.glob("*_QandA.json")) == sorted(f"{n}_QandA.json" for n in SETS)


@pytest.mark.parametrize("name", SETS)
def test_reference_sample(synthetic_sample_dir, name):
    data = json.loads((synthetic_sample_dir / f"{name}_QandA.json").read_text())
    frame = pd.read_csv(synthetic_sample_dir / f"{name}_DB.csv")
    frame = frame[frame.iloc[:, 0] != frame.columns[0]].reset_index(drop=True)  # duplicated header line
    for q in data["questions"]:
        got, want = _parse(ground_truth(frame, q["sql"])), _parse(q["sqlResult"])
        if "ORDER BY" in q["sql"].upper():
            assert got == want, q["sql"]
        else:
            assert sorted(got) == sorted(want), q["sql"]


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
