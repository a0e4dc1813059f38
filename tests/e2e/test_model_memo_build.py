"""End-to-end: a model whose code, configs and inputs did not change keeps its table (macros/model_memo.sql).

A small project (a clone of the session's benchmark build) is built again and again: with nothing changed
every memoized model, SQL or Python, keeps its table and no export file is written again; a table changed by
hand, an export file deleted, a model's code edited each make exactly the models they touch run again. A
changed seed row gives the database a build from nothing gives.
"""
from __future__ import annotations

import hashlib
import json
import re

import pytest

from support.dbt_project import build_vars, clone, copy_project, query, run_dbt

SELECT = ("--select", "+benchmark_exports", "+int_answer_cross_check", "+benchmark_question_tables",
          "--exclude", "resource_type:test")
QUESTIONS = "intermediate.int_question_instances"
COMPARED = ("main.benchmark_tables", "main.benchmark_questions", QUESTIONS, "intermediate.int_answer_cross_check",
            "intermediate.int_sampled_rows", "intermediate.int_table_renderings")


def build(project) -> None:
    run_dbt(project, "build", *SELECT, "--vars", build_vars(), artifacts=True)  # memo() reads run_results.json


def memo(project) -> dict[str, bool]:
    """Whether each memoized model of the last run kept its table: {model name: reused}."""
    run = json.loads((project / "target" / "run_results.json").read_text())["metadata"]["invocation_id"]
    rows = query(project, "select relation, reused from main.build_memo where invocation_id = ?", [run])
    assert rows, "the last run recorded its memoized models"
    return {relation.rsplit(".", 1)[1].strip('"'): reused for relation, reused in rows}


def content(project) -> dict[str, str]:
    """Each compared relation's rows, in order, as a digest."""
    out = {}
    for relation in COMPARED:
        rows = query(project, f"select * from {relation} order by all")
        out[relation] = hashlib.sha256(repr(rows).encode()).hexdigest()
    return out


def export_files(project) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in sorted((project / "exports").glob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(benchmark_base, tmp_path_factory):
    project = clone(benchmark_base, tmp_path_factory.mktemp("memo") / "p")
    build(project)
    return project


def test_a_rebuild_runs_only_the_models_whose_code_inputs_table_or_files_changed(built, tmp_path):
    import duckdb

    from generator_py.dbt_glue.model_memo import content_key

    project = clone(built, tmp_path / "p")
    build(project)  # the clone has no exports: this run writes them, and keeps every memoized table
    first = memo(project)
    assert first["benchmark_exports"] is False and first["int_question_instances"] is True
    before, files = content(project), export_files(project)
    assert files

    build(project)  # nothing changed
    kept = memo(project)
    assert all(kept.values()), kept
    assert {"int_question_answers", "int_hct_cells", "benchmark_questions"} <= set(kept)  # SQL models too
    assert content(project) == before
    assert export_files(project) == files  # no export file written again
    # the SQL materialization and the Python wrapper key a relation alike, so either reads the other's
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        for relation, output_key in con.execute("select relation, output_key from main.build_memo").fetchall():
            assert content_key(con, relation) == output_key, relation
    finally:
        con.close()

    con = duckdb.connect(str(project / "hctqa.duckdb"))  # a table changed by hand, an export file deleted
    con.execute(f"delete from {QUESTIONS} where question_id = (select min(question_id) from {QUESTIONS})")
    con.close()
    victim = sorted((project / "exports").glob("*.parquet"))[0]
    victim.unlink()
    build(project)
    ran = {name for name, reused in memo(project).items() if not reused}
    assert {"int_question_instances", "benchmark_exports"} <= ran
    assert "int_sampled_rows" not in ran and "int_table_renderings" not in ran
    assert content(project) == before and victim.exists()

    model = project / "models" / "generation" / "int_table_renderings.py"  # an edit that changes no output
    model.write_text(model.read_text() + "\n# an edit that changes no output\n")
    build(project)
    ran = {name for name, reused in memo(project).items() if not reused}
    assert ran == {"int_table_renderings"}  # what it feeds keeps its table: the rendering is the same
    assert content(project) == before


def test_a_changed_seed_row_gives_the_database_a_build_from_nothing_gives(built, tmp_path):
    project = clone(built, tmp_path / "p")
    fresh = copy_project(tmp_path / "fresh")
    for folder in (project, fresh):
        seed = folder / "seeds" / "domain_values.csv"
        text, n = re.subn(r"(?m)^accidents,Year,1,1,2014,$", "accidents,Year,1,1,2013,", seed.read_text())
        assert n == 1
        seed.write_text(text)
    before = content(project)
    build(project)
    build(fresh)
    ran = {name for name, reused in memo(project).items() if not reused}
    assert {"int_sampled_rows", "int_question_instances", "int_table_renderings"} <= ran
    after = content(project)
    assert after != before
    assert after == content(fresh)
