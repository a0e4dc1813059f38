"""Adding an eighth domain is a seed change only: append the fixture's rows and build it (once a module; a bad
seed is then tried on a clone of that build)."""
from __future__ import annotations

import csv

import duckdb
import pytest

from support.dbt_project import ROOT, clone, copy_project, run_dbt

FIXTURE = ROOT / "tests" / "fixtures" / "extra_domain"


def append_seed_rows(project, name: str) -> None:
    with open(FIXTURE / f"{name}.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    target = project / "seeds" / f"{name}.csv"
    if not target.read_text().endswith("\n"):
        target.write_text(target.read_text() + "\n")
    with open(target, "a", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


SEEDS = ("domain_attributes", "domain_values", "domain_value_ranges", "table_templates", "table_template_options",
         "nl_templates", "nl_table_meanings", "choice_statements")


MUSEUMS = "{domains: [museums], cross_check: true}"


@pytest.fixture(scope="module")
def museums(tmp_path_factory):
    """A copy with the fixture's rows appended to the seeds, built: the whole pipeline with its data tests
    (tables, questions, answers, cross-check, baselines)."""
    project = copy_project(tmp_path_factory.mktemp("museums") / "p")
    for name in SEEDS:
        append_seed_rows(project, name)
    run_dbt(project, "build", "--vars", MUSEUMS)
    return project


def test_new_domain_from_seed_rows_only(museums):
    con = duckdb.connect(str(museums / "hctqa.duckdb"), read_only=True)
    n, domains = con.execute("select count(*), list(distinct dataset) from benchmark_tables "
                             "where variant = 'original'").fetchone()
    assert domains == ["museums"]
    assert n == 6 * 2  # 6 valid option combinations x replica 2
    html = con.execute("select html from benchmark_tables limit 1").fetchone()[0]
    assert "Number of museum visitors" in html
    n_questions, n_templates = con.execute(
        "select count(*), count(distinct template_id) from benchmark_questions where dataset = 'museums' "
        "and variant = 'original'").fetchone()
    assert n_questions >= 12 * 13 and n_templates >= 14
    assert con.execute("select bool_and(agrees) from intermediate.int_answer_cross_check").fetchone()[0]
    con.close()


def test_bad_seed_fails_the_build_and_keeps_what_was_built(museums, tmp_path):
    project = clone(museums, tmp_path / "p")
    templates = project / "seeds" / "table_templates.csv"
    lines = templates.read_text().splitlines()
    bad_line = len(lines)  # the museums template, last line of the file
    lines[-1] = lines[-1].replace(",Total,sum", ",Total,median")
    templates.write_text("\n".join(lines) + "\n")
    proc = run_dbt(project, "build", "--select", "+benchmark_tables", "--vars", MUSEUMS, check=False)
    assert proc.returncode != 0
    assert f"seeds/table_templates.csv line {bad_line}" in proc.stdout
    assert "unknown agg function 'median'" in proc.stdout
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    assert con.execute("select count(*) from benchmark_tables where variant = 'original'").fetchone()[0] == 12
