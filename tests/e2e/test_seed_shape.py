"""End-to-end: a seed's shape is part of the build, also when a database already exists.

dbt-duckdb copies a CSV into an existing seed table by position: without the project's checks a
`table_templates.csv` with its columns reordered loads transposed, a misspelled header loads as if
it were right, and an empty file fails with a bare StopIteration. Each case is built on top of a
finished build of the same project.
"""
from __future__ import annotations

import csv
import hashlib
import io
import shutil
from pathlib import Path

import duckdb
import pytest

from support.dbt_project import CLONE_IGNORE, build_vars, run_dbt

SELECT = ("--select", "+benchmark_tables", "--exclude", "test_type:data")


def snapshot(project: Path) -> dict[str, str]:
    """table_id -> hash of the table's rendering and relational content."""
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        rows = con.execute("select table_id, html, relational_csv from benchmark_tables order by table_id").fetchall()
    finally:
        con.close()
    return {tid: hashlib.sha256((html + relational).encode()).hexdigest() for tid, html, relational in rows}


def rewrite_columns(path: Path, order: list[str]) -> None:
    """Write the CSV again with its columns in `order` (same header names, same values)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=order, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")


@pytest.fixture(scope="module")
def built(benchmark_base) -> tuple[Path, dict[str, str]]:
    """The session's small build (`build_vars()`: accidents, one replica) and its tables' hashes."""
    return benchmark_base, snapshot(benchmark_base)


def clone(built, dest: Path) -> Path:
    shutil.copytree(built[0], dest, ignore=CLONE_IGNORE)
    return dest


def test_reordered_seed_columns_load_by_name(built, tmp_path):
    project = clone(built, tmp_path / "p")
    templates = project / "seeds" / "table_templates.csv"
    header = templates.read_text(encoding="utf-8").splitlines()[0].split(",")
    # rows and columns swap places in the file: by position, every table would come out transposed
    swapped = {"row_codes": "col_codes", "row_samples": "col_samples", "col_codes": "row_codes",
               "col_samples": "row_samples"}
    rewrite_columns(templates, [swapped.get(c, c) for c in header])
    assert templates.read_text(encoding="utf-8").splitlines()[0] != ",".join(header)

    # The same content under another column order is the same input: the fingerprint stays, so this partial
    # build beside the marts of the first one is a complete build.
    run_dbt(project, "build", *SELECT, "--vars", build_vars())
    assert snapshot(project) == built[1]
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        (row_codes,) = con.execute(
            "select row_codes from staging.stg_table_templates where domain = 'accidents'").fetchone()
    finally:
        con.close()
    assert row_codes == "Place;Setting"  # as in the file, under its own header


@pytest.mark.parametrize("change, message", [
    ("misspelled", "seeds/table_templates.csv line 1 (header): unknown column 'domian', missing column 'domain'"),
    ("empty", "seeds/table_templates.csv is empty"),
])
def test_bad_seed_file_fails_naming_file_and_column_and_keeps_the_build(built, tmp_path, change, message):
    project = clone(built, tmp_path / "p")
    templates = project / "seeds" / "table_templates.csv"
    if change == "misspelled":
        text = templates.read_text(encoding="utf-8")
        templates.write_text(text.replace("domain,", "domian,", 1), encoding="utf-8")
    else:
        templates.write_text("", encoding="utf-8")

    proc = run_dbt(project, "build", *SELECT, "--vars", build_vars(), check=False)
    assert proc.returncode != 0
    assert message in proc.stdout, proc.stdout[-3000:]
    assert "StopIteration" not in proc.stdout
    # the seed was not loaded: what was built is still there, unchanged
    assert snapshot(project) == built[1]
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        columns = [r[0] for r in con.execute("describe seeds.table_templates").fetchall()]
    finally:
        con.close()
    assert columns[0] == "domain"
