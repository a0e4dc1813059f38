"""End-to-end: a release whose own annotations break the property rules still builds.

The public release has tables whose flags disagree with each other (multi-level and balanced but
neither symmetric nor asymmetric, ...). They are data we import: kept as given and named in
`benchmark_tables.annotation_issues`, while the flags the generator computes stay held to the rules
by the data test `assert_table_property_flags_consistent`.
"""
from __future__ import annotations

import json
from pathlib import Path

import duckdb

from support.dbt_project import build_vars, clone, run_dbt
from generator_py.release.properties import TABLE_PROPERTIES

CSV = ',0,1,2\n0,Sector,2020,2021\n1,Clerks,"69,203","42,782"\n2,Drivers,"80,000","50,000"\n'
CONSISTENT = "psa--9--1"
NOT_SYMMETRIC = "psa--9--2"  # multi-level and balanced, neither symmetric nor asymmetric
NOT_BALANCED = "psa--9--3"  # multi-level and asymmetric, neither balanced nor unbalanced


def _table(table_id: str, true_flags: set[str]) -> dict:
    assert true_flags <= set(TABLE_PROPERTIES)
    question = {"question_id": f"{table_id}--q1", "question": "How many clerks were there in 2020?",
                "gt": "{69203}", "question_properties": {"Row Filter": True}}
    return {"table_id": table_id,
            "table_info": {"table_properties": {name: name in true_flags for name in TABLE_PROPERTIES},
                           "table_formats": {"csv": CSV}},
            "questions": [question]}


def write_release(folder: Path) -> Path:
    """A release-format file (the real-world `qaps` JSON) with one consistent and two inconsistent tables."""
    folder.mkdir(parents=True)
    tables = [
        _table(CONSISTENT, {"Standard Relational Table"}),
        _table(NOT_SYMMETRIC, {"Multi Level Column", "Balanced Multi Level Column"}),
        _table(NOT_BALANCED, {"Multi Level Column", "Asymmetric Multi Level Column"}),
    ]
    (folder / "realWorld_HCT_qaps.json").write_text(json.dumps(tables), encoding="utf-8")
    return folder


def test_inconsistent_release_annotations_build_and_are_named(benchmark_base, tmp_path):
    # on a clone of the session's small benchmark: its generation models keep their tables (their inputs are
    # the same), the release's and everything downstream are built
    project = clone(benchmark_base, tmp_path / "p")
    release = write_release(tmp_path / "release")
    release_vars = build_vars(hctqa_release_dir=str(release))
    run_dbt(project, "build", "--vars", release_vars)  # the light build: its models and tests, the consistency test included

    con = duckdb.connect(str(project / "hctqa.duckdb"))
    try:
        real = dict(con.execute(
            "select table_id, annotation_issues from benchmark_tables where source = 'real'").fetchall())
        assert real == {CONSISTENT: None,
                        NOT_SYMMETRIC: "column nesting neither symmetric nor asymmetric",
                        NOT_BALANCED: "column nesting neither balanced nor unbalanced"}
        # the annotations themselves are kept as given
        flags = con.execute("""select column_nesting, balanced_column_nesting, symmetric_column_nesting,
                                      asymmetric_column_nesting from benchmark_tables where table_id = ?""",
                            [NOT_SYMMETRIC]).fetchone()
        assert flags == (True, True, False, False)
        assert con.execute("""select count(*), count(annotation_issues) from benchmark_tables
                              where source = 'synthetic'""").fetchone()[1] == 0
        # everything downstream was built, the real questions included
        assert con.execute("select count(*) from benchmark_questions where source = 'real'").fetchone()[0] == 3
        assert con.execute("select count(*) from eval_scores where source = 'real'").fetchone()[0] > 0
        assert con.execute("select count(*) from analysis_report").fetchone()[0] > 0

        # computed flags stay held to the rules: break one synthetic table's flags and the test fails
        (victim,) = con.execute("""select table_id from benchmark_tables where source = 'synthetic'
                                   and symmetric_column_nesting order by table_id limit 1""").fetchone()
        con.execute("update benchmark_tables set asymmetric_column_nesting = true where table_id = ?", [victim])
    finally:
        con.close()
    proc = run_dbt(project, "test", "--select", "assert_table_property_flags_consistent", "--vars", release_vars,
                   check=False)
    assert proc.returncode != 0, proc.stdout[-3000:]
    assert "assert_table_property_flags_consistent" in proc.stdout and "Got 1 result" in proc.stdout, proc.stdout[-3000:]
