"""End-to-end: what an analyst lands in after the CI-sized build.

`main` holds only the marts (benchmark_*, eval_*, analysis_*); seeds, staging views and the
intermediate generation tables have their own schemas. Every model is described and every mart
column documented (dbt docs). The build's log is dbt's lines and whole progress lines, nothing else.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict

from support.dbt_project import ROOT

MART_PREFIXES = ("benchmark_", "eval_", "analysis_")
TIMESTAMP = re.compile(r"^(\x1b\[[0-9;]*m)*\d\d:\d\d:\d\d  ")


def _relations(ci_db) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for schema, name in ci_db.execute("""select table_schema, table_name from information_schema.tables
                                         where table_catalog = current_database()""").fetchall():
        out[schema].add(name)
    return out


def test_main_holds_only_the_marts_and_the_rest_its_own_schemas(ci_db):
    relations = _relations(ci_db)
    assert set(relations) == {"main", "seeds", "staging", "intermediate"}
    # the marts, build_status (the run hooks' record of whether the marts are of one build) and build_memo
    # (the keys of the memoized models)
    assert all(name.startswith(MART_PREFIXES) for name in relations["main"] - {"build_status", "build_memo"}), \
        sorted(relations["main"])
    assert {"build_status", "build_memo"} <= relations["main"]
    assert {"benchmark_tables", "benchmark_questions", "eval_summary", "analysis_report"} <= relations["main"]
    assert relations["seeds"] == {p.stem for p in (ROOT / "seeds").glob("*.csv")}
    assert relations["staging"] and all(n.startswith("stg_") for n in relations["staging"])
    assert relations["intermediate"] and all(n.startswith("int_") for n in relations["intermediate"])


def test_every_model_described_and_every_mart_column_documented(ci_build, ci_db):
    manifest = json.loads((ci_build / "target" / "manifest.json").read_text())
    models = [n for n in manifest["nodes"].values() if n["resource_type"] == "model"]
    assert not [m["name"] for m in models if not m["description"].strip()]
    undocumented = {}
    for m in models:
        if not m["name"].startswith(MART_PREFIXES):
            continue
        columns = [c for (c,) in ci_db.execute("""select column_name from information_schema.columns
                                                  where table_schema = 'main' and table_name = ?
                                                  order by ordinal_position""", [m["name"]]).fetchall()]
        assert columns, m["name"]
        documented = {name for name, c in m["columns"].items() if c["description"].strip()}
        missing = [c for c in columns if c not in documented]
        stale = sorted(set(m["columns"]) - set(columns))
        if missing or stale:
            undocumented[m["name"]] = {"missing": missing, "not in the table": stale}
    assert not undocumented, undocumented


def test_build_log_is_dbt_lines_and_whole_progress_lines(ci_build):
    stdout = (ci_build / "build.stdout").read_text()
    stderr = (ci_build / "build.stderr").read_text()
    assert "Warning" not in stdout + stderr  # no Python warnings (matplotlib, pandas, ...) in the log
    for line in (stdout + stderr).splitlines():
        assert not line.strip() or TIMESTAMP.match(line), repr(line)
    # a progress line: its bar, then done/total (a rate only once it is measurable: a fast entry has none)
    progress = [line for line in stderr.splitlines() if re.search(r"\] \d+/\d+ ", line)]
    assert progress and all(re.search(r"\[[#.]{24}\] \d+/\d+ ", line) for line in progress)
