import csv
import gzip
import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from generator_py.release.real_import import QUESTION_COLUMNS, TABLE_COLUMNS, load_release
from generator_py.grid.release_csv import MERGE_MARKER, grid_from_release_csv
from generator_py.release.table_csv import parse_release_csv
from generator_py.render.registry import format_names, render
from generator_py.release.properties import (
    NUMERIC_QUESTION_PROPERTIES,
    QUESTION_PROPERTIES,
    TABLE_PROPERTIES,
    TABLE_PROPERTY_COLUMNS,
    parse_release_number,
    release_name_to_column,
)

SAMPLE_NAME = "realWorld_HCT_qaps.sample.json"


@pytest.fixture(scope="module")
def sample(real_sample_dir) -> Path:
    return real_sample_dir / SAMPLE_NAME


@pytest.fixture(scope="module")
def release(sample):
    return json.loads(sample.read_text())


@pytest.fixture(scope="module")
def frames(real_sample_dir):
    return load_release(real_sample_dir)


def test_counts(frames):
    tables, questions = frames
    assert len(tables) == 38 and len(questions) == 194
    assert tables["dataset"].value_counts().to_dict() == {"psa": 12, "arxiv": 10, "census": 8, "pak": 8}
    assert list(tables.columns) == list(TABLE_COLUMNS)
    assert list(questions.columns) == list(QUESTION_COLUMNS)
    assert (tables["source"] == "real").all() and (questions["source"] == "real").all()
    assert tables["table_id"].is_unique and questions["question_id"].is_unique
    assert questions["template_id"].isna().all() and questions["sql"].isna().all()


def test_direct_file_and_gzip(tmp_path, frames, sample):
    t1, q1 = load_release(sample)
    assert len(t1) == 38 and len(q1) == 194
    target = tmp_path / "realWorld_HCT_qaps.json.gz"
    with open(sample, "rb") as src, gzip.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    t2, q2 = load_release(tmp_path)
    pd.testing.assert_frame_equal(t2, frames[0])
    pd.testing.assert_frame_equal(q2, frames[1])


def test_table_properties_preserved(frames, release):
    tables = frames[0].set_index("table_id")
    for table in release:
        props = table["table_info"]["table_properties"]
        row = tables.loc[table["table_id"]]
        for name, column in TABLE_PROPERTIES.items():
            assert bool(row[column]) is props[name], (table["table_id"], name)
        sub = any(props[n] for n in ("Balanced Row Nesting", "Unbalanced Row Nesting", "Symmetric Row Nesting", "Asymmetric Row Nesting"))
        assert bool(row["row_nesting"]) is (props.get("Row Nesting", False) or sub)
    for column in TABLE_PROPERTY_COLUMNS:
        assert tables[column].dtype == bool


def test_question_properties_preserved(frames, release):
    questions = frames[1].set_index("question_id")
    for table in release:
        for q in table["questions"]:
            row = questions.loc[q["question_id"]]
            assert row["table_id"] == table["table_id"]
            assert row["question"] == q["question"] and row["answer_gt"] == q["gt"]
            for name in QUESTION_PROPERTIES:
                value = row[release_name_to_column(name)]
                if name in NUMERIC_QUESTION_PROPERTIES:
                    expected = parse_release_number(q["question_properties"].get(name))
                    assert (pd.isna(value) if expected is None else value == expected), (q["question_id"], name)
                else:
                    assert bool(value) is q["question_properties"][name], (q["question_id"], name)


def test_shapes_and_rendering(frames, release):
    tables = frames[0].set_index("table_id")
    for table in release:
        csv_text = table["table_info"]["table_formats"]["csv"]
        row = tables.loc[table["table_id"]]
        assert row["release_csv"] == csv_text
        texts = parse_release_csv(csv_text)
        assert row["n_rows"] == len(texts) and row["n_columns"] == len(texts[0])
        assert row["n_cells"] == row["n_rows"] * row["n_columns"]
        assert 1 <= row["column_header_depth"] < row["n_rows"]
        # every rendering is the one renderer's output for the table's grid
        grid = grid_from_release_csv(csv_text)
        for name in format_names(text_only=True):
            assert row[name] == render(grid, name), (table["table_id"], name)
        flat = [["" if t.strip() == MERGE_MARKER else " ".join(t.split()) for t in line] for line in texts]
        assert list(csv.reader(io.StringIO(row["csv"]))) == flat, table["table_id"]


def test_answer_rows(frames):
    q = frames[1].set_index("question_id")
    row = q.loc["psa--1--102--A1"]
    assert json.loads(row["answer_rows"]) == [["92,624", "10,769"], ["118,136", "3,341"]]
    assert row["answer_n_rows"] == 2 and row["answer_n_values"] == 4


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        load_release(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError):
        load_release(tmp_path)  # empty folder
    bad = tmp_path / "realWorld_HCT_qaps.json"
    bad.write_text("not json")
    with pytest.raises(ValueError, match="realWorld_HCT_qaps.json"):
        load_release(tmp_path)
    bad.write_text(json.dumps({"a": 1}))
    with pytest.raises(ValueError, match="list of tables"):
        load_release(bad)


def test_errors_in_tables_and_questions(tmp_path, release):
    bad = tmp_path / "realWorld_HCT_qaps.json"
    table = release[0]
    broken = dict(table)
    del broken["questions"]
    bad.write_text(json.dumps([table, broken]))
    with pytest.raises(ValueError, match=r"psa--1--102.*questions"):
        load_release(bad)
    broken = json.loads(json.dumps(table))
    del broken["questions"][2]["gt"]
    bad.write_text(json.dumps([broken]))
    with pytest.raises(ValueError, match=r"realWorld_HCT_qaps.json.*psa--1--102.*#2.*gt"):
        load_release(bad)
    broken = json.loads(json.dumps(table))
    del broken["table_id"]
    bad.write_text(json.dumps([broken]))
    with pytest.raises(ValueError, match=r"#0.*table_id"):
        load_release(bad)


def test_table_without_cells(tmp_path, release):
    empty = json.loads(json.dumps(release[0]))
    empty["table_info"]["table_formats"]["csv"] = ",0,1\n"
    bad = tmp_path / "realWorld_HCT_qaps.json"
    bad.write_text(json.dumps([empty]))
    with pytest.raises(ValueError, match=r"psa--1--102.*csv holds no cells"):
        load_release(bad)
