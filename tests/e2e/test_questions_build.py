"""End-to-end: questions, answers and their cross-check in the CI-sized build."""
from __future__ import annotations

import json

import sqlglot

from generator_py.answers.ground_truth import ground_truth
from generator_py.questions.diversity import question_diversity


def test_every_template_and_about_fifteen_questions_per_table(ci_db):
    templates = {r[0] for r in ci_db.execute("select distinct template_id from benchmark_questions where source = 'synthetic'").fetchall()}
    assert templates == set(range(1, 16))
    per_table = ci_db.execute("""
        select avg(n), min(n), max(n) from (
            select table_id, count(*) as n from benchmark_questions where source = 'synthetic' group by table_id)""").fetchone()
    assert 13.5 <= per_table[0] <= 15 and per_table[1] >= 12 and per_table[2] <= 15


def test_question_ids_carry_family_and_variant(ci_db):
    rows = ci_db.execute("""
        select question_id, table_id, template_id, family, family_variant from benchmark_questions
        where source = 'synthetic'""").fetchall()
    assert rows
    for qid, table_id, template_id, family, variant in rows:
        # the 15 Table III families, one question each per table: today's ids, variant 0
        assert (family, variant) == (f"q{template_id:02d}", 0), qid
        assert qid == f"{table_id}--{family}", qid


def test_sqlite_agrees_with_duckdb_on_every_question(ci_db):
    n_questions = ci_db.execute("select count(*) from benchmark_questions where source = 'synthetic' "
                                "and variant = 'original'").fetchone()[0]
    checked, agreed = ci_db.execute("select count(*), count(*) filter (where agrees) from intermediate.int_answer_cross_check").fetchone()
    assert checked == n_questions and agreed == checked


def test_sql_parses_and_transpiles_to_sqlite_and_postgres(ci_db):
    for (sql,) in ci_db.execute("select sql from benchmark_questions where source = 'synthetic' using sample 300 rows (reservoir, 7)").fetchall():
        ast = sqlglot.parse_one(sql, read="duckdb")
        assert ast.find(sqlglot.exp.Table).name == "T"
        for dialect in ("sqlite", "postgres"):
            assert sqlglot.transpile(sql, read="duckdb", write=dialect)[0]


def test_stored_answer_equals_public_ground_truth_function(ci_db):
    rows = ci_db.execute("""
        select q.sql, q.answer_gt, t.relational_csv from benchmark_questions q join benchmark_tables t using (table_id)
        where q.source = 'synthetic' using sample 200 rows (reservoir, 11)""").fetchall()
    import io

    import pandas as pd

    for sql, gt, rel_csv in rows:
        frame = pd.read_csv(io.StringIO(rel_csv), dtype=str, keep_default_na=False).replace({"": None})
        frame["Value"] = frame["Value"].astype(float)
        ordered = " ORDER BY " in sql.upper()
        got = ground_truth(frame, sql)
        if ordered:
            assert got == gt, (sql, got, gt)
        else:
            assert sorted(got.split(" || ")) == sorted(gt.split(" || ")), (sql, got, gt)


def test_question_diversity_below_paper_synthetic(ci_db):
    questions = ci_db.execute("select table_id, question from benchmark_questions where source = 'synthetic' "
                              "and variant = 'original'").df()
    assert question_diversity(questions) <= 0.35


def test_answer_rows_match_gt(ci_db):
    for rows_json, gt in ci_db.execute("select answer_rows, answer_gt from benchmark_questions using sample 100 rows (reservoir, 3)").fetchall():
        rows = json.loads(rows_json)
        assert gt == " || ".join("{" + " | ".join(v for v in r if v is not None) + "}" for r in rows)


def test_creation_type_and_the_question_origin_marts(ci_db):
    kinds = ci_db.execute("select source, creation_type, count(*) from benchmark_questions group by all").fetchall()
    assert kinds and {(s, k) for s, k, _ in kinds} == {("synthetic", "synthetic")}
    # Table I per source and template, computed by the build: the same statistic as over the questions here
    rows = ci_db.execute("select level, source, template_id, n_questions, syntactic_similarity "
                         "from analysis_question_diversity").fetchall()
    questions = ci_db.execute("select table_id, question from benchmark_questions where suite = 'hctqa' "
                              "and variant = 'original'").df()
    source_row = [r for r in rows if r[0] == "source" and r[1] == "synthetic"]
    assert len(source_row) == 1 and source_row[0][3] == len(questions)
    assert abs(source_row[0][4] - question_diversity(questions)) < 1e-12
    assert {r[2] for r in rows if r[0] == "template"} == set(range(1, 16))
    # Figure 8's breakdown: every scored model, its synthetic questions
    by_kind = ci_db.execute("select distinct model_name, creation_type from analysis_scores_by_creation_type").fetchall()
    models = {r[0] for r in ci_db.execute("select distinct model_name from eval_scores").fetchall()}
    assert models and {m for m, _ in by_kind} == models and {k for _, k in by_kind} == {"synthetic"}
