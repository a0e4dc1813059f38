"""The CI-scale build's content, column by column, against a stored fingerprint.

A change to what `benchmark_tables` or `benchmark_questions` hold must be deliberate: the test fails
naming every column whose content changed, appeared or disappeared. After a deliberate change, write
the new fingerprint from a CI-scale build and commit it with the change that explains it:

    python tests/e2e/test_build_fingerprint.py PATH/TO/hctqa.duckdb
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import duckdb

FINGERPRINT = Path(__file__).with_name("build_fingerprint.json")
# mart -> the column that orders its rows
MARTS = {"benchmark_tables": "table_id", "benchmark_questions": "question_id"}


def column_hashes(con, table: str, key: str) -> dict:
    """Row count and the sha256 of each column's values in key order (NULLs marked, never skipped)."""
    columns = [r[0] for r in con.execute(
        "select column_name from information_schema.columns where table_schema = 'main' and table_name = ? "
        "order by ordinal_position", [table]).fetchall()]
    parts = ", ".join(
        f"sha256(string_agg(coalesce(cast(\"{c}\" as varchar), '<NULL>'), chr(31) order by \"{key}\"))"
        for c in columns)
    hashes = con.execute(f"select count(*), {parts} from main.{table}").fetchall()[0]
    return {"rows": hashes[0], "columns": dict(zip(columns, hashes[1:]))}


def build_fingerprint(con) -> dict:
    return {table: column_hashes(con, table, key) for table, key in MARTS.items()}


def differences(stored: dict, built: dict) -> list[str]:
    out = []
    for table in MARTS:
        s, b = stored.get(table, {"rows": None, "columns": {}}), built[table]
        if s["rows"] != b["rows"]:
            out.append(f"{table}: {b['rows']} rows, the fingerprint has {s['rows']}")
        for column in sorted(set(s["columns"]) | set(b["columns"])):
            if column not in b["columns"]:
                out.append(f"{table}.{column}: gone")
            elif column not in s["columns"]:
                out.append(f"{table}.{column}: new")
            elif s["columns"][column] != b["columns"][column]:
                out.append(f"{table}.{column}: content changed")
    return out


def test_ci_build_matches_the_stored_fingerprint(ci_db):
    stored = json.loads(FINGERPRINT.read_text())
    changed = differences(stored, build_fingerprint(ci_db))
    assert not changed, ("the CI-scale build differs from tests/e2e/build_fingerprint.json; if the change is "
                         "deliberate, rewrite it (see this module's docstring):\n  " + "\n  ".join(changed))


def test_a_changed_value_is_reported_by_column():
    con = duckdb.connect()
    con.execute("create table main.benchmark_tables as select 't1' as table_id, 'a' as html")
    con.execute("create table main.benchmark_questions as select 'q1' as question_id, 1 as template_id")
    before = build_fingerprint(con)
    con.execute("update main.benchmark_tables set html = 'b'")
    con.execute("alter table main.benchmark_questions add column family varchar")
    assert differences(before, build_fingerprint(con)) == [
        "benchmark_tables.html: content changed", "benchmark_questions.family: new"]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/e2e/test_build_fingerprint.py PATH/TO/hctqa.duckdb")
    db = duckdb.connect(sys.argv[1], read_only=True)
    FINGERPRINT.write_text(json.dumps(build_fingerprint(db), indent=1, sort_keys=True) + "\n")
    print(f"wrote {FINGERPRINT}")
