import csv
import io
import json
import os

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from generator_py.release.real_import import load_release
from generator_py.release.table_csv import parse_release_csv
from generator_py.exports.benchmark_exports import QAPS_JSON, QUESTIONS_PARQUET, TABLES_PARQUET, write_exports
from generator_py.release.properties import (
    NUMERIC_QUESTION_PROPERTIES,
    NUMERIC_QUESTION_PROPERTY_COLUMNS,
    QUESTION_PROPERTIES,
    QUESTION_PROPERTY_COLUMNS,
    ROW_NESTING_RELEASE_NAME,
    TABLE_PROPERTY_COLUMNS,
)
from generator_py.exports.parquet import arrow_table
from generator_py.release.qaps_write import (QUESTION_BOOL_COLUMNS, QUESTION_INT_COLUMNS, build_qaps, qaps_bytes,
                                          question_entry_texts, release_number)
from generator_py.release.table_csv import release_csv

SYN_CSV = "Event \\ Year,2020,2021\nRunning,\"1,200\",14\nSwimming,7,9\n"
REAL_CSV = ',0,1,2\n0,Sector,Total,Private\n1,Clerks,"69,203","42,782"\n2,Total,"80,000","50,000"\n'


def _tables() -> pd.DataFrame:
    rows = []
    # Given out of order on purpose: the export sorts by table_id.
    for table_id, source, dataset, csv_text, true_props in (
        ("syn--sports--medals--v0001--r1", "synthetic", "sports", SYN_CSV,
         {"column_nesting", "balanced_column_nesting", "symmetric_column_nesting", "split_header_cell",
          "row_nesting", "unbalanced_row_nesting", "asymmetric_row_nesting"}),
        ("psa--9--1", "real", "psa", REAL_CSV,
         {"column_aggregation", "global_column_aggregation", "explicit_column_aggregation",
          "row_aggregation", "global_row_aggregation", "explicit_row_aggregation"}),
    ):
        row = {
            "table_id": table_id,
            "source": source,
            "dataset": dataset,
            "html": f"<table><caption>{table_id} – ünïcode</caption></table>",
            "csv": csv_text,
            "markdown": f"| {table_id} |\n|---|\n",
        }
        row.update({c: c in true_props for c in TABLE_PROPERTY_COLUMNS})
        rows.append(row)
    return pd.DataFrame(rows)


def _question(qid, table_id, text, gt, true_props, numbers):
    row = {"question_id": qid, "table_id": table_id, "question": text, "answer_gt": gt}
    for column in QUESTION_PROPERTY_COLUMNS:
        row[column] = numbers.get(column) if column in NUMERIC_QUESTION_PROPERTY_COLUMNS else column in true_props
    return row


def _questions(numeric_kind: str = "Int64") -> pd.DataFrame:
    rows = [
        _question("syn--sports--medals--v0001--r1--q02", "syn--sports--medals--v0001--r1",
                  "Which event has the most medals in 2021?", "{Running}",
                  {"rank", "rank_rank_on_plain", "returned_columns", "returned_columns_project_on_plain"},
                  {"rank_report_top": 1, "returned_columns_max_depth_of_involved_columns": 1,
                   "returned_columns_num_of_output_columns": 1}),
        _question("psa--9--1--A0", "psa--9--1", "How many \"Clerks\" work in the private sector?", "{42782}",
                  {"row_filter", "row_filter_involved_columns_single", "row_filter_retained_rows_single",
                   "returned_columns", "returned_columns_project_on_plain"},
                  {"row_filter_max_depth_of_involved_columns": 1, "row_filter_num_of_conditions": 1,
                   "returned_columns_max_depth_of_involved_columns": 1,
                   "returned_columns_num_of_output_columns": 1}),
        _question("syn--sports--medals--v0001--r1--q01", "syn--sports--medals--v0001--r1",
                  "What is the total number of medals over both years?", "{1230}",
                  {"aggregation", "aggregation_aggregation_on_plain", "aggregation_aggregation_type_sum",
                   "aggregation_grouping_global"},
                  {"aggregation_num_of_aggregations": 2}),
    ]
    frame = pd.DataFrame(rows)
    for column in NUMERIC_QUESTION_PROPERTY_COLUMNS:
        if numeric_kind == "Int64":
            frame[column] = frame[column].astype("Int64")
        elif numeric_kind == "float":
            frame[column] = frame[column].astype("float64")  # absent numbers as NaN
        elif numeric_kind == "object":
            frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame


@pytest.fixture(scope="module")
def sample(real_sample_dir):
    return json.loads((real_sample_dir / "realWorld_HCT_qaps.sample.json").read_text(encoding="utf-8"))


@pytest.fixture()
def exported(tmp_path):
    paths = write_exports(tmp_path / "out", _tables(), _questions())
    return paths


def _union_keys(dicts):
    keys = set()
    for d in dicts:
        keys |= set(d)
    return keys


# --------------------------------------------------------------------------- parquet


def test_files_written(exported, tmp_path):
    assert [p.name for p in exported] == [TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON]
    assert all(p.is_file() and p.parent == tmp_path / "out" for p in exported)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in exported)


def test_parquet_round_trip(exported):
    tables = pq.read_table(exported[0]).to_pandas()
    questions = pq.read_table(exported[1]).to_pandas()
    expected_t = _tables().sort_values("table_id").reset_index(drop=True)
    expected_q = _questions().sort_values("question_id").reset_index(drop=True)
    assert list(tables["table_id"]) == sorted(expected_t["table_id"])
    assert list(questions["question_id"]) == sorted(expected_q["question_id"])
    assert list(tables.columns) == list(expected_t.columns)  # no index column
    assert list(questions.columns) == list(expected_q.columns)
    pd.testing.assert_frame_equal(tables, expected_t)
    for column in QUESTION_PROPERTY_COLUMNS:
        if column in NUMERIC_QUESTION_PROPERTY_COLUMNS:
            assert questions[column].astype("Int64").equals(expected_q[column]), column
        else:
            assert questions[column].dtype == bool
            assert questions[column].tolist() == expected_q[column].tolist()
    for column in ("question_id", "table_id", "question", "answer_gt"):
        assert questions[column].tolist() == expected_q[column].tolist()

    meta = pq.ParquetFile(exported[1]).metadata
    schema_meta = pq.read_schema(exported[1]).metadata or {}
    assert b"pandas" not in schema_meta
    assert meta.row_group(0).column(0).compression == "ZSTD"
    assert str(pq.read_schema(exported[1]).field("rank_report_top").type) == "int64"
    assert str(pq.read_schema(exported[0]).field("html").type) == "string"


def test_parquet_and_json_byte_identical(tmp_path):
    a = write_exports(tmp_path / "a", _tables(), _questions())
    # Same content, different input row order and numeric representation (float NaN vs Int64).
    b = write_exports(tmp_path / "b", _tables().iloc[::-1], _questions("float").iloc[[2, 0, 1]])
    # Text stored as object columns instead of pandas' string dtype.
    c = write_exports(tmp_path / "c", _tables().astype({"table_id": object, "csv": object, "html": object}),
                      _questions("object").astype({"question": object, "answer_gt": object}))
    for pa_, pb, pc in zip(a, b, c):
        assert pa_.read_bytes() == pb.read_bytes() == pc.read_bytes(), pa_.name
    again = write_exports(tmp_path / "a", _tables(), _questions())
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in b]


# --------------------------------------------------------------------------- JSON layout vs the release


def test_json_layout_matches_release_sample(exported, sample):
    ours = json.loads(exported[2].read_text(encoding="utf-8"))
    assert type(ours) is type(sample) is list
    assert [t["table_id"] for t in ours] == sorted(t["table_id"] for t in ours)

    sample_table_keys = _union_keys(sample)
    sample_info_keys = _union_keys(t["table_info"] for t in sample)
    sample_format_keys = _union_keys(t["table_info"]["table_formats"] for t in sample)
    sample_tprop_keys = _union_keys(t["table_info"]["table_properties"] for t in sample)
    sample_questions = [q for t in sample for q in t["questions"]]
    sample_q_keys = _union_keys(sample_questions)
    sample_qprop_keys = _union_keys(q["question_properties"] for q in sample_questions)
    assert ROW_NESTING_RELEASE_NAME in sample_tprop_keys

    for table in ours:
        assert set(table) == sample_table_keys
        assert list(table) == list(sample[0])  # release key order
        info = table["table_info"]
        assert sample_info_keys <= set(info)
        assert set(info) - sample_info_keys <= {"source", "dataset"}
        assert list(info)[: len(sample[0]["table_info"])] == list(sample[0]["table_info"])
        assert sample_format_keys <= set(info["table_formats"]) and {"csv", "html", "md"} <= set(info["table_formats"])
        assert all(isinstance(v, str) for v in info["table_formats"].values())
        assert set(info["table_properties"]) == sample_tprop_keys
        assert all(type(v) is bool for v in info["table_properties"].values())
        assert isinstance(table["questions"], list) and table["questions"]
        ids = [q["question_id"] for q in table["questions"]]
        assert ids == sorted(ids)
        for q in table["questions"]:
            assert set(q) == sample_q_keys and list(q) == list(sample_questions[0])
            assert all(isinstance(q[k], str) for k in ("question_id", "question", "gt"))
            assert set(q["question_properties"]) == sample_qprop_keys
            assert list(q["question_properties"]) == list(QUESTION_PROPERTIES)

    # Value types per property: booleans where the release has booleans only; numbers as the
    # release writes them (digit strings, "" when absent).
    numeric = set(NUMERIC_QUESTION_PROPERTIES)
    for name in sample_qprop_keys:
        sample_types = {type(q["question_properties"][name]) for q in sample_questions if name in q["question_properties"]}
        our_values = [q["question_properties"][name] for t in ours for q in t["questions"]]
        if name in numeric:
            assert str in sample_types
            assert all(isinstance(v, str) and (v == "" or v.isdigit()) for v in our_values), name
        else:
            assert sample_types == {bool}
            assert all(type(v) is bool for v in our_values), name
    for name in sample_tprop_keys:
        assert {type(t["table_info"]["table_properties"][name]) for t in sample
                if name in t["table_info"]["table_properties"]} == {bool}


def test_json_values(exported):
    ours = {t["table_id"]: t for t in json.loads(exported[2].read_text(encoding="utf-8"))}
    syn = ours["syn--sports--medals--v0001--r1"]
    assert syn["table_info"]["source"] == "synthetic" and syn["table_info"]["dataset"] == "sports"
    assert syn["table_info"]["table_csv_path"] is None
    assert syn["table_info"]["table_properties"]["Multi Level Column"] is True
    assert syn["table_info"]["table_properties"][ROW_NESTING_RELEASE_NAME] is True
    assert syn["table_info"]["table_properties"]["Standard Relational Table"] is False
    assert "ünïcode" in syn["table_info"]["table_formats"]["html"]
    assert "ünïcode" in exported[2].read_text(encoding="utf-8")  # ensure_ascii=False
    q2, q1 = syn["questions"][1], syn["questions"][0]
    assert q1["question_id"].endswith("q01") and q1["gt"] == "{1230}"
    assert q1["question_properties"]["Aggregation Num Of Aggregations"] == "2"
    assert q1["question_properties"]["Rank Report Top"] == ""
    assert q1["question_properties"]["Row Filter Num Of Conditions"] == ""
    assert q1["question_properties"]["Aggregation Aggregation Type Sum"] is True
    assert q2["question_properties"]["Rank Report Top"] == "1"
    real = ours["psa--9--1"]
    assert real["table_info"]["table_properties"][ROW_NESTING_RELEASE_NAME] is False
    assert real["table_info"]["table_formats"]["csv"] == REAL_CSV  # already release layout: verbatim
    assert real["questions"][0]["question_properties"]["Row Filter Num Of Conditions"] == "1"


def test_the_json_is_the_qaps_structure_and_each_question_entry_written_as_json_writes_it(tmp_path):
    questions = _questions("object")
    # texts json must escape, and properties without a value
    questions.loc[0, "question"] = 'Say "why" \\ twice,\nthen\ttab \x01 and ünïcode \u2028?'
    questions.loc[1, "answer_gt"] = None
    questions["aggregation"] = questions["aggregation"].astype(object)
    questions.loc[2, "aggregation"] = None
    questions.loc[2, "aggregation_num_of_aggregations"] = None
    path = write_exports(tmp_path, _tables(), questions)[2]
    qaps = build_qaps(_tables(), questions)
    assert path.read_bytes() == qaps_bytes(qaps)
    entries = {q["question_id"]: q for t in qaps for q in t["questions"]}
    first = entries[questions.loc[0, "question_id"]]
    assert first["question"] == questions.loc[0, "question"]
    assert entries[questions.loc[1, "question_id"]]["gt"] == ""
    third = entries[questions.loc[2, "question_id"]]["question_properties"]
    assert third["Aggregation"] is False and third["Aggregation Num Of Aggregations"] == ""
    # each entry's text is json's own text of the entry
    rows = arrow_table(questions.sort_values("question_id"), QUESTION_BOOL_COLUMNS, QUESTION_INT_COLUMNS, "questions")
    for text in question_entry_texts(rows):
        assert text == json.dumps(json.loads(text), ensure_ascii=False)
    questions.loc[1, "question"] = None
    with pytest.raises(ValueError, match="psa--9--1--A0: missing question text"):
        write_exports(tmp_path / "bad", _tables(), questions)


def test_release_number_and_csv():
    assert [release_number(v) for v in (1, 2.0, np.int64(3), "4", None, float("nan"), pd.NA, "", False)] == [
        "1", "2", "3", "4", "", "", "", "", ""]
    for bad in (1.5, "two", True):
        with pytest.raises(ValueError):
            release_number(bad)
    wrapped = release_csv(SYN_CSV)
    assert wrapped.splitlines()[0] == ",0,1,2"
    assert parse_release_csv(wrapped) == list(csv.reader(io.StringIO(SYN_CSV)))
    assert release_csv(wrapped) == wrapped and release_csv(REAL_CSV) == REAL_CSV


def test_bad_input(tmp_path):
    q = _questions()
    q.loc[0, "table_id"] = "nope"
    with pytest.raises(ValueError, match="not in tables"):
        write_exports(tmp_path, _tables(), q)
    q = _questions()
    q.loc[1, "question_id"] = q.loc[0, "question_id"]
    with pytest.raises(ValueError, match="duplicate question_id"):
        write_exports(tmp_path, _tables(), q)
    with pytest.raises(ValueError, match="missing columns"):
        write_exports(tmp_path, _tables().drop(columns=["row_nesting"]), _questions())
    q = _questions("float")
    q.loc[0, "rank_report_top"] = 1.5
    with pytest.raises(ValueError, match="rank_report_top"):
        build_qaps(_tables(), q)
    assert not list(tmp_path.glob("*.parquet"))


# --------------------------------------------------------------------------- round trip through the importer


@pytest.mark.parametrize("numeric_kind", ["Int64", "float", "object"])
def test_round_trip_through_load_release(tmp_path, numeric_kind):
    tables_in, questions_in = _tables(), _questions(numeric_kind)
    paths = write_exports(tmp_path, tables_in, questions_in)
    tables, questions = load_release(paths[2])

    t_in = tables_in.set_index("table_id")
    t_out = tables.set_index("table_id")
    assert sorted(t_out.index) == sorted(t_in.index)
    for column in TABLE_PROPERTY_COLUMNS:
        assert t_out[column].to_dict() == t_in[column].to_dict(), column
    # The importer drops the release's index row/column: the grid of our CSV comes back.
    for table_id, row in t_in.iterrows():
        exported_csv = t_out.loc[table_id, "release_csv"]  # as given in the file
        assert parse_release_csv(exported_csv) == parse_release_csv(release_csv(row["csv"]))
    assert parse_release_csv(t_out.loc["syn--sports--medals--v0001--r1", "release_csv"]) == list(
        csv.reader(io.StringIO(SYN_CSV)))

    q_in = questions_in.set_index("question_id")
    q_out = questions.set_index("question_id")
    assert sorted(q_out.index) == sorted(q_in.index)
    assert q_out["table_id"].to_dict() == q_in["table_id"].to_dict()
    assert q_out["question"].to_dict() == q_in["question"].to_dict()
    assert q_out["answer_gt"].to_dict() == q_in["answer_gt"].to_dict()
    for column in QUESTION_PROPERTY_COLUMNS:
        if column in NUMERIC_QUESTION_PROPERTY_COLUMNS:
            got = {k: (None if pd.isna(v) else int(v)) for k, v in q_out[column].items()}
            want = {k: (None if pd.isna(v) else int(v)) for k, v in q_in[column].items()}
        else:
            got, want = q_out[column].to_dict(), q_in[column].to_dict()
        assert got == want, column


def test_sample_round_trip_keeps_properties(tmp_path, real_sample_dir):
    """The release sample -> load_release -> our export -> load_release: same properties."""
    tables, questions = load_release(real_sample_dir)
    paths = write_exports(tmp_path, tables, questions)
    tables2, questions2 = load_release(paths[2])
    kept = ["table_id", "csv", "html", "release_csv", *TABLE_PROPERTY_COLUMNS]  # html: the spans came back
    pd.testing.assert_frame_equal(tables2[kept], tables.sort_values("table_id").reset_index(drop=True)[kept])
    cols = ["question_id", "table_id", "question", "answer_gt", *QUESTION_PROPERTY_COLUMNS]
    pd.testing.assert_frame_equal(
        questions2[cols].sort_values("question_id").reset_index(drop=True),
        questions.sort_values("question_id").reset_index(drop=True)[cols],
    )


# --------------------------------------------------------------------------- twins, image links, unchanged files


def _with_twins():
    tables, questions = _tables().assign(variant="original"), _questions().assign(variant="original")
    syn = tables["table_id"].str.startswith("syn")
    twin_tables = tables[syn].assign(table_id=lambda f: f["table_id"] + "--obf", variant="obfuscated")
    twin_questions = questions[questions["table_id"].str.startswith("syn")].assign(
        question_id=lambda f: f["question_id"] + "--obf", table_id=lambda f: f["table_id"] + "--obf",
        variant="obfuscated")
    return pd.concat([tables, twin_tables], ignore_index=True), pd.concat([questions, twin_questions], ignore_index=True)


def test_twins_are_in_files_of_their_own(tmp_path):
    tables, questions = _with_twins()
    paths = write_exports(tmp_path, tables, questions)
    assert [p.name for p in paths] == [TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON, "benchmark_tables_obfuscated.parquet",
                                       "benchmark_questions_obfuscated.parquet", "hctqa_qaps_obfuscated.json"]
    originals = json.loads((tmp_path / QAPS_JSON).read_text(encoding="utf-8"))
    twins = json.loads((tmp_path / "hctqa_qaps_obfuscated.json").read_text(encoding="utf-8"))
    assert [t["table_id"] for t in originals] == ["psa--9--1", "syn--sports--medals--v0001--r1"]
    assert [t["table_id"] for t in twins] == ["syn--sports--medals--v0001--r1--obf"]
    assert set(pq.read_table(tmp_path / TABLES_PARQUET).column("variant").to_pylist()) == {"original"}
    assert set(pq.read_table(tmp_path / "benchmark_questions_obfuscated.parquet").column("variant").to_pylist()) \
        == {"obfuscated"}
    # a later export without twins removes their files
    write_exports(tmp_path, *(f[f["variant"] == "original"] for f in (tables, questions)))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON])


def test_qaps_links_each_image_relative_to_the_exports_folder(tmp_path):
    images = {"psa--9--1": "images/psa--9--1.png"}
    qaps = json.loads(write_exports(tmp_path, _tables(), _questions(), images)[2].read_text(encoding="utf-8"))
    paths = {t["table_id"]: t["table_info"]["table_image_local_path"] for t in qaps}
    assert paths == {"psa--9--1": "images/psa--9--1.png", "syn--sports--medals--v0001--r1": None}


def test_an_unchanged_file_is_not_rewritten(tmp_path):
    first = write_exports(tmp_path, _tables(), _questions())
    for p in first:  # an old modification time, so that a rewrite would show
        os.utime(p, ns=(1_000_000_000, 1_000_000_000))
    again = write_exports(tmp_path, _tables(), _questions())
    assert all(p.stat().st_mtime_ns == 1_000_000_000 for p in again)
    changed = _questions()
    changed.loc[0, "question"] = "Which event has the fewest medals in 2021?"
    write_exports(tmp_path, _tables(), changed)
    assert {p.name for p in first if p.stat().st_mtime_ns != 1_000_000_000} == {QUESTIONS_PARQUET, QAPS_JSON}


def test_parts_written_one_at_a_time_make_the_same_export(tmp_path):
    from generator_py.exports.benchmark_exports import TWIN_SUFFIX, commit, write_part

    tables, questions = _with_twins()
    whole = write_exports(tmp_path / "whole", tables, questions)
    paths = []
    for suffix, variant in (("", "original"), (TWIN_SUFFIX, "obfuscated")):
        paths += write_part(tmp_path / "parts", suffix, tables[tables["variant"] == variant],
                            questions[questions["variant"] == variant])
    assert not any((tmp_path / "parts" / p.name).exists() for p in paths)  # nothing in place before commit
    commit(tmp_path / "parts", paths)
    assert [p.name for p in paths] == [p.name for p in whole]
    assert all((tmp_path / "parts" / p.name).read_bytes() == p.read_bytes() for p in whole)


def test_a_bad_twin_part_after_the_originals_leaves_the_export_as_it_was(tmp_path):
    from generator_py.exports.benchmark_exports import TWIN_SUFFIX, discard, write_part

    tables, questions = _with_twins()
    before = write_exports(tmp_path, tables, questions)
    old = {p.name: p.read_bytes() for p in before}
    changed = questions.assign(question=questions["question"] + " (new)")
    write_part(tmp_path, "", tables[tables["variant"] == "original"], changed[changed["variant"] == "original"])
    twins = changed[changed["variant"] == "obfuscated"].assign(table_id="syn--nowhere")  # a question of no table
    with pytest.raises(ValueError, match="syn--nowhere"):
        write_part(tmp_path, TWIN_SUFFIX, tables[tables["variant"] == "obfuscated"], twins)
    discard(tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == old



def test_a_part_without_rows_makes_its_three_files(tmp_path):
    from generator_py.exports.benchmark_exports import commit, write_part

    paths = write_part(tmp_path, "", _tables().head(0), _questions().head(0))
    commit(tmp_path, paths)
    assert [p.name for p in paths] == [TABLES_PARQUET, QUESTIONS_PARQUET, QAPS_JSON]
    assert json.loads((tmp_path / QAPS_JSON).read_text(encoding="utf-8")) == []
    assert pq.read_table(tmp_path / QUESTIONS_PARQUET).num_rows == 0


def _staged_export(out, tables: pd.DataFrame, questions: pd.DataFrame):
    """The export as the benchmark_exports model writes it: each part staged from DuckDB, then streamed."""
    import duckdb

    from generator_py.exports.benchmark_exports import TWIN_SUFFIX, commit, discard, stage_part, staging_folder, \
        write_staged_part

    con = duckdb.connect()
    con.register("tables_in", tables)
    con.register("questions_in", questions)
    paths = []
    try:
        for suffix, where in (("", "variant is distinct from 'obfuscated'"), (TWIN_SUFFIX, "variant = 'obfuscated'")):
            staged = stage_part(con.sql("select * from tables_in").filter(where),
                                con.sql("select * from questions_in").filter(where),
                                staging_folder(out) / (suffix or "originals"))
            paths += write_staged_part(out, suffix, staged)
    except BaseException:
        discard(out)
        raise
    commit(out, paths)
    return paths


def test_parts_staged_by_duckdb_give_the_bytes_of_rows_given_whole(tmp_path):
    from generator_py.exports.benchmark_exports import staging_folder

    tables, questions = _with_twins()
    whole = write_exports(tmp_path / "whole", tables, questions)
    # the rows in another order: DuckDB sorts them as the files take them
    staged = _staged_export(tmp_path / "staged", tables.iloc[::-1], questions.iloc[::-1])
    assert [p.name for p in staged] == [p.name for p in whole]
    for a, b in zip(staged, whole):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert not staging_folder(tmp_path / "staged").exists()


@pytest.mark.parametrize("bad, message", [
    (lambda q: q.assign(question_id=q["question_id"].iloc[0]), "duplicate question_id"),
    (lambda q: q.assign(table_id=q["table_id"].where(q.index != 1, "syn--nowhere")), "syn--nowhere"),
    (lambda q: q.drop(columns=["answer_gt"]), "missing columns"),
])
def test_a_bad_staged_part_leaves_the_export_as_it_was(tmp_path, bad, message):
    from generator_py.exports.benchmark_exports import staging_folder

    tables, questions = _with_twins()
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in write_exports(tmp_path, tables, questions)}
    with pytest.raises(ValueError, match=message):
        _staged_export(tmp_path, tables, bad(questions))
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir() if p.is_file()} == before
    assert not staging_folder(tmp_path).exists()
