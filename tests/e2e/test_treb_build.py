"""End-to-end: a CI-scale build with the TReB families and the two-table and OLAP families (var question_suites
[hctqa, treb, beyond]) up to the benchmark marts, the cross-checks and the scores by TReB subtask, by tables read
and by OLAP operation of the default baselines, with every data test on them; its Table III questions are those of
the default CI build, row for row."""
from __future__ import annotations

import json

import duckdb
import pytest

from support.dbt_project import copy_project, run_dbt

TREB_VARS = "{replicas: 1, cross_check: true, question_suites: [hctqa, treb, beyond]}"


@pytest.fixture(scope="module")
def treb_project(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("treb") / "project")
    # the generation and benchmark marts the questions reach, and every data test on them (singular ones included;
    # the registry catalog, which the TReB data test reads its families from)
    # the default baselines scored by subtask (the oracle must score 1 on each)
    # the two-table and OLAP questions' check, the tables they read and the baselines' scores by both breakdowns
    run_dbt(project, "build", "--select", "+benchmark_questions", "+int_family_cross_check", "int_registry_catalog",
            "+int_answer_cross_check", "+analysis_scores_by_treb_skill", "+int_sql_text_cross_check",
            "+benchmark_question_tables", "+analysis_scores_by_tables_read", "+analysis_scores_by_olap_operation",
            "+eval_prompts",
            "--exclude", "tag:images", "assert_every_table_has_one_image", "--vars", TREB_VARS)
    return project


@pytest.fixture(scope="module")
def treb_db(treb_project):
    con = duckdb.connect(str(treb_project / "hctqa.duckdb"), read_only=True)
    yield con
    con.close()


def test_every_family_is_asked_and_cross_checked(treb_db):
    counts = dict(treb_db.execute("select family, count(*) from main.benchmark_questions where suite = 'treb' "
                                  "group by family").fetchall())
    kinds = dict(treb_db.execute("select name, json_extract_string(attributes, '$.kind') from intermediate.int_registry_catalog "
                                 "where kind = 'families' and json_extract_string(attributes, '$.suite') = 'treb'").fetchall())
    families = set(kinds)
    assert len(families) >= 2 and set(counts) == families and min(counts.values()) >= 100, counts
    checked = treb_db.execute("select count(*), count(*) filter (where agrees) "
                              "from intermediate.int_family_cross_check").fetchone()
    assert checked == (sum(counts.values()),) * 2
    renderings = treb_db.execute("select count(*) from main.benchmark_questions where rendering_csv is not null "
                                 "and suite = 'treb'").fetchone()[0]
    # the naming families hide part of their table, so their questions have renderings of their own
    assert renderings == sum(n for family, n in counts.items() if kinds[family] == "naming") > 0


def test_the_data_tests_on_the_treb_questions_ran_and_passed(treb_project):
    results = json.loads((treb_project / "target" / "run_results.json").read_text())["results"]
    status = {r["unique_id"].split(".")[2]: r["status"] for r in results if r["unique_id"].startswith("test.")}
    for name in ("assert_treb_answers_cross_checked", "assert_treb_questions_consistent",
                 "assert_sql_text_answers_cross_checked", "assert_sql_text_questions_consistent",
                 "assert_question_renderings_hide_the_answer", "assert_questions_have_one_non_empty_answer",
                 "assert_no_duplicate_question_text_per_table", "assert_sql_literals_appear_in_question"):
        assert status.get(name) == "pass", (name, status.get(name))


def test_hctqa_questions_are_those_of_the_default_build(treb_db, ci_db):
    cols = [r[0] for r in ci_db.execute(
        "select column_name from information_schema.columns where table_schema = 'main' "
        "and table_name = 'benchmark_questions' and column_name <> 'build_fingerprint' order by ordinal_position"
    ).fetchall()]
    listed = ", ".join(f'"{c}"::varchar' for c in cols)
    query = f"select md5(string_agg(row({listed})::varchar, chr(30) order by question_id)), count(*) " \
            "from main.benchmark_questions where suite = 'hctqa'"
    assert treb_db.execute(query).fetchone() == ci_db.execute(query).fetchone()


def test_no_fine_tuning_example_shows_the_answer_its_question_hides(treb_db):
    from evaluation_py.exports.finetune_sets import question_examples
    from evaluation_py.exports.finetune_splits import table_splits
    from generator_py.render.html import escape

    questions = treb_db.execute(
        "select question_id, table_id, source, family, question, answer_gt, rendering_html, "
        "json_extract_string(answer_rows, '$[0][0]') as answer from main.benchmark_questions "
        "where family in ('title_name', 'header_name')").df()
    tables = treb_db.execute("select table_id, html from main.benchmark_tables").df()
    examples = question_examples(questions, tables, table_splits(tables[["table_id"]], 42))
    answer_of = dict(zip(questions["question_id"], zip(questions["family"], questions["answer"])))
    assert len(examples) == len(questions) > 0
    for qid, text in zip(examples["id"], examples["input"]):
        family, answer = answer_of[qid]
        # the hidden caption or header cell is nowhere in the table the example shows
        assert f">{escape(answer)}<" not in text and (family != "title_name" or "<caption" not in text), qid


def test_every_declared_subtask_is_scored_and_the_oracle_scores_one_on_each(treb_db):
    declared = set(treb_db.execute(
        "select json_extract_string(attributes, '$.treb_skill'), json_extract_string(attributes, '$.treb_subtask') "
        "from intermediate.int_registry_catalog where kind = 'families'").fetchall())
    asked = set(treb_db.execute("select distinct treb_skill, treb_subtask from main.benchmark_questions "
                                "where treb_subtask is not null").fetchall())
    assert asked == declared and len(declared) >= 5
    rows = treb_db.execute("select model_name, treb_skill, treb_subtask, metric, mean, ci_low, n_questions, n_tables "
                           "from main.analysis_scores_by_treb_skill where scoring_mode = 'strict'").fetchall()
    oracle = {(s, t): (metric, mean, low, n) for m, s, t, metric, mean, low, n, _ in rows if m == "oracle"}
    assert set(oracle) == declared
    metrics = dict(treb_db.execute("select treb_subtask, any_value(treb_metric) from main.benchmark_questions "
                                   "where treb_subtask is not null group by 1").fetchall())
    for (skill, subtask), (metric, mean, low, n) in oracle.items():
        assert metric == metrics[subtask] and mean == low == 1.0 and n > 0, (skill, subtask, metric, mean)
    # header_match is reported beside it, and not 1 everywhere
    header_match = [mean for m, *_, mean, _, _, _ in rows if m == "header_match"]
    assert len(header_match) == len(declared) and min(header_match) < 1.0


def test_the_two_table_and_olap_questions_are_asked_checked_and_read_their_tables(treb_db):
    families = dict(treb_db.execute(
        "select name, cast(json_extract(attributes, '$.n_tables') as integer) from intermediate.int_registry_catalog "
        "where kind = 'families' and json_extract_string(attributes, '$.suite') = 'beyond'").fetchall())
    counts = dict(treb_db.execute("select family, count(*) from main.benchmark_questions where suite = 'beyond' "
                                  "group by family").fetchall())
    assert set(counts) == set(families) and len(families) == 6 and min(counts.values()) >= 100, counts
    checked = treb_db.execute("select count(*), count(*) filter (where agrees) "
                              "from intermediate.int_sql_text_cross_check").fetchone()
    assert checked == (sum(counts.values()),) * 2
    # one row per table a question reads: two for the two-table families, the partner a table of the same dataset
    reads = treb_db.execute(
        "select q.family, count(*) as n, count(distinct t.dataset), bool_and(r.table_id <> q.table_id) "
        "from main.benchmark_question_tables as r join main.benchmark_questions as q using (question_id) "
        "join main.benchmark_tables as t on t.table_id = r.table_id "
        "where q.suite = 'beyond' and r.table_position = 2 group by q.family").fetchall()
    two = {f for f, n in families.items() if n == 2}
    assert {f for f, *_ in reads} == two and all(n == counts[f] for f, n, *_ in reads)
    assert treb_db.execute(
        "select count(*) from main.benchmark_question_tables as r join main.benchmark_questions as q using (question_id) "
        "join main.benchmark_tables as t on t.table_id = r.table_id where t.dataset <> q.dataset").fetchone()[0] == 0
    # every question has its rows; the Table III ones read their own table alone, with their conditions
    assert treb_db.execute("select count(distinct question_id) from main.benchmark_question_tables").fetchone() == \
        treb_db.execute("select count(*) from main.benchmark_questions").fetchone()
    assert treb_db.execute("select count(*) from main.benchmark_question_tables as r join main.benchmark_questions "
                           "as q using (question_id) where q.suite = 'hctqa' and (r.table_position <> 1 or "
                           "r.table_id <> q.table_id or r.n_conditions <> q.n_row_conditions + q.n_col_conditions)").fetchone()[0] == 0


def test_a_two_table_prompt_shows_both_tables_and_the_oracle_scores_one_on_every_breakdown(treb_db):
    message = treb_db.execute(
        "select p.messages_json, q.table_id, r.table_id from main.eval_prompts as p "
        "join main.benchmark_questions as q using (question_id) "
        "join main.benchmark_question_tables as r on r.question_id = q.question_id and r.table_position = 2 "
        "where p.table_format = 'html' limit 1").fetchone()
    assert message is not None, "no two-table question among the baselines' sample"
    user = json.loads(message[0])[-1]["content"]
    first, second = (treb_db.execute("select html from main.benchmark_tables where table_id = ?", [t]).fetchone()[0]
                     for t in message[1:])
    assert user.index("First table:") < user.index(first.strip()) < user.index("Second table:") \
        < user.index(second.strip())
    by_tables = treb_db.execute("select model_name, n_tables, value, n from main.analysis_scores_by_tables_read "
                                "where scoring_mode = 'strict' and metric = 'f1'").fetchall()
    by_olap = treb_db.execute("select model_name, olap_operation, value, n from main.analysis_scores_by_olap_operation "
                              "where scoring_mode = 'strict' and metric = 'f1'").fetchall()
    assert {(m, k) for m, k, *_ in by_tables} == {(m, k) for m in ("oracle", "header_match") for k in (1, 2)}
    assert {k for _, k, *_ in by_olap} == {"none", "roll-up", "drill-down", "grouping sets"}
    for model, _, value, n in by_tables + by_olap:
        assert n > 0 and (model != "oracle" or value == 1.0), (model, value)
    assert min(v for m, k, v, _ in by_tables if m == "header_match" and k == 2) < 1.0
