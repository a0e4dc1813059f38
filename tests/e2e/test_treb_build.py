"""End-to-end: the CI-scale build of two domains with the TReB families and the two-table and OLAP families (var
question_suites [hctqa, treb, beyond], the session's `treb_build`) up to the benchmark marts, the cross-checks and
the scores by TReB skill and subtask, by tables read and by OLAP operation of the default baselines, with every
data test on them; its original Table III questions are those of the default CI build's same two domains, row for
row (it makes no obfuscated twins: the CI build makes and checks them)."""
from __future__ import annotations

import json

import duckdb
import pytest

from support.dbt_project import TREB_DOMAINS


@pytest.fixture(scope="module")
def treb_project(treb_build):
    return treb_build


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
    assert len(families) >= 2 and set(counts) == families and min(counts.values()) >= 40, counts
    checked = treb_db.execute("select count(*), count(*) filter (where agrees) "
                              "from intermediate.int_family_cross_check").fetchone()
    assert checked == (sum(counts.values()),) * 2
    renderings = dict(treb_db.execute(
        "select i.family, count(*) from main.benchmark_questions as q join intermediate.int_question_instances as i "
        "using (question_id) where q.rendering_csv is not null and q.suite = 'treb' group by 1").fetchall())
    # the naming families hide part of their table, so their questions have views of their own; so do the
    # perturbed and changed views (every robustness question but the first of its table, the planted value, the
    # moved outlier)
    assert all(renderings.get(f) == n for f, n in counts.items() if kinds[f] == "naming"), renderings
    assert {f for f in renderings if kinds[f] != "naming"} == {"robustness", "plausibility", "outlier"}, renderings


def test_the_data_tests_on_the_treb_questions_ran_and_passed(treb_project):
    results = json.loads((treb_project / "target" / "run_results.json").read_text())["results"]
    status = {r["unique_id"].split(".")[2]: r["status"] for r in results if r["unique_id"].startswith("test.")}
    for name in ("assert_treb_answers_cross_checked", "assert_treb_questions_consistent",
                 "assert_sql_text_answers_cross_checked", "assert_sql_text_questions_consistent",
                 "assert_question_renderings_hide_the_answer", "assert_multi_step_questions_carry_their_steps",
                 "assert_questions_have_one_non_empty_answer",
                 "assert_no_duplicate_question_text_per_table", "assert_sql_literals_appear_in_question",
                 "assert_groupings_resolved_through_the_vocabulary"):
        assert status.get(name) == "pass", (name, status.get(name))


def test_hctqa_questions_are_those_of_the_default_build(treb_db, ci_db):
    built = {d for (d,) in treb_db.execute("select distinct dataset from main.benchmark_tables").fetchall()}
    assert built == set(TREB_DOMAINS)
    cols = [r[0] for r in ci_db.execute(
        "select column_name from information_schema.columns where table_schema = 'main' "
        "and table_name = 'benchmark_questions' and column_name <> 'build_fingerprint' order by ordinal_position"
    ).fetchall()]
    listed = ", ".join(f'"{c}"::varchar' for c in cols)
    query = f"select md5(string_agg(row({listed})::varchar, chr(30) order by question_id)), count(*) " \
            "from main.benchmark_questions where suite = 'hctqa' and variant = 'original' and table_id in " \
            "(select table_id from main.benchmark_tables where dataset in (select unnest(?::varchar[])))"
    treb_rows = treb_db.execute(query, [TREB_DOMAINS]).fetchone()
    assert treb_rows[1] > 0 and treb_rows == ci_db.execute(query, [TREB_DOMAINS]).fetchone()


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
                           "from main.analysis_scores_by_treb_skill where scoring_mode = 'strict' "
                           "and treb_subtask is not null").fetchall()
    oracle = {(s, t): (metric, mean, low, n) for m, s, t, metric, mean, low, n, _ in rows if m == "oracle"}
    assert set(oracle) == declared
    metrics = dict(treb_db.execute("select treb_subtask, any_value(treb_metric) from main.benchmark_questions "
                                   "where treb_subtask is not null group by 1").fetchall())
    for (skill, subtask), (metric, mean, low, n) in oracle.items():
        assert metric == metrics[subtask] and mean == low == 1.0 and n > 0, (skill, subtask, metric, mean)
    # header_match is reported beside it, and not 1 everywhere
    header_match = [mean for m, *_, mean, _, _, _ in rows if m == "header_match"]
    assert len(header_match) == len(declared) and min(header_match) < 1.0


def test_the_oracle_scores_its_best_on_every_family_and_header_match_is_reported(treb_db):
    best = dict(treb_db.execute("select name, cast(json_extract(attributes, '$.best') as double) "
                                "from intermediate.int_registry_catalog where kind = 'metrics'").fetchall())
    rows = treb_db.execute(
        "select s.model_name, q.family, q.treb_metric, avg(s.value), count(*) from main.eval_scores as s "
        "join main.benchmark_questions as q using (question_id) where q.suite = 'treb' and s.scoring_mode = 'strict' "
        "and s.metric = q.treb_metric group by all").fetchall()
    families = {r[0] for r in treb_db.execute("select name from intermediate.int_registry_catalog where kind = "
                                               "'families' and json_extract_string(attributes, '$.suite') = 'treb'")
                .fetchall()}
    oracle = {f: (metric, mean, n) for m, f, metric, mean, n in rows if m == "oracle"}
    assert set(oracle) == families
    for family, (metric, mean, n) in oracle.items():
        assert mean == best[metric] and n > 0, (family, metric, mean)
    header_match = {f for m, f, *_ in rows if m == "header_match"}
    assert header_match == families


def test_robustness_views_repeat_one_question_and_the_consistency_is_reported(treb_db):
    groups = treb_db.execute(
        "select table_id, count(*), count(distinct question), count(distinct answer_gt), count(rendering_csv), "
        "count(distinct rendering_csv) from main.benchmark_questions where family = 'robustness' group by 1").fetchall()
    assert len(groups) >= 100
    for table_id, n, texts, answers, views, distinct_views in groups:
        # one question and one answer on the table and on up to five perturbed views, each view its own
        assert 2 <= n <= 6 and texts == answers == 1 and views == distinct_views == n - 1, table_id
    kinds = dict(treb_db.execute(
        "select json_extract_string(grid_change, '$.kind'), count(*) from intermediate.int_question_instances "
        "where family = 'robustness' group by 1").fetchall())
    assert set(kinds) == {None, "permute_rows", "permute_columns", "header_noise", "content_variant"}
    rows = treb_db.execute("select model_name, view, consistency, accuracy_original, accuracy_view, n_groups "
                           "from main.analysis_robustness_consistency").fetchall()
    oracle = {v: (c, a, b) for m, v, c, a, b, n in rows if m == "oracle" and n > 0}
    assert set(oracle) == {"all", "permute_rows", "permute_columns", "header_noise", "letters", "numbers"}
    assert all(values == (1.0, 1.0, 1.0) for values in oracle.values()), oracle
    assert {v for m, v, *_ in rows if m == "header_match"} == set(oracle)


def test_grouped_questions_say_their_phrase_and_plausibility_views_show_the_planted_value(treb_db):
    grouped = treb_db.execute(
        "select question, json_extract_string(spec_json, '$.grouping.phrase'), "
        "json_extract(spec_json, '$.grouping.members') from main.benchmark_questions "
        "where json_extract(spec_json, '$.grouping') is not null").fetchall()
    assert len(grouped) >= 100
    for question, phrase, members in grouped:
        assert phrase in question and not all(m in question for m in json.loads(members)), question
    planted = treb_db.execute(
        "select q.rendering_csv, t.csv, q.answer_gt, json_extract_string(i.grid_change, '$.text') "
        "from main.benchmark_questions as q join main.benchmark_tables as t using (table_id) "
        "join intermediate.int_question_instances as i using (question_id) where q.family = 'plausibility'").fetchall()
    changed = [p for p in planted if p[3] is not None]
    assert len(changed) == len(planted) - len(changed) >= 100  # one planted value and one control per table
    assert all(p[2] == "{none}" for p in planted if p[3] is None)
    assert all(f'"{text}"' in view and view != csv and gt != "{none}" for view, csv, gt, text in changed)


def test_every_treb_skill_has_its_row_averaging_its_subtasks(treb_db):
    skills = {s for (s,) in treb_db.execute("select distinct json_extract_string(attributes, '$.treb_skill') from "
                                            "intermediate.int_registry_catalog where kind = 'families'").fetchall()}
    assert skills == {"NLU", "TU", "TBO", "TCO", "DA", "ADA"}
    rows = treb_db.execute("""
        select s.model_name, s.treb_skill, s.mean, s.n_subtasks, avg(t.mean), count(t.mean)
        from main.analysis_scores_by_treb_skill as s
        join main.analysis_scores_by_treb_skill as t
          on t.treb_subtask is not null and (t.model_name, t.inference_mode, t.scoring_mode, t.treb_skill)
             = (s.model_name, s.inference_mode, s.scoring_mode, s.treb_skill)
        where s.treb_subtask is null and s.scoring_mode = 'strict' group by all""").fetchall()
    assert {(m, s) for m, s, *_ in rows} == {(m, s) for m in ("oracle", "header_match") for s in skills}
    for model, skill, mean, n_subtasks, subtask_mean, n in rows:
        assert n_subtasks == n and mean == pytest.approx(subtask_mean), (model, skill)
        assert model != "oracle" or mean == 1.0


def test_the_analysis_families_answer_as_stated(treb_db):
    """The answer balance of the yes/no tests (30-70 % yes), the outlier controls, and each outlier question's
    answer: the header path of the moved cell its view shows, or none."""
    catalog = dict(treb_db.execute("select name, attributes from intermediate.int_registry_catalog "
                                   "where kind = 'families'").fetchall())
    tests = [f for f, a in catalog.items() if json.loads(a)["treb_subtask"] in ("hypothesis_testing",
                                                                                  "multi_step_hypothesis_testing")]
    assert len(tests) == 2
    for family in tests:
        yes, n = treb_db.execute("select count(*) filter (where json_extract_string(answer_rows, '$[0][0]') = 'yes'), "
                                 "count(*) from main.benchmark_questions where family = ?", [family]).fetchone()
        assert n >= 100 and 0.3 <= yes / n <= 0.7, (family, yes, n)
    outliers = treb_db.execute("""select q.answer_rows, i.grid_change, q.rendering_csv from main.benchmark_questions as q
                                  join intermediate.int_question_instances as i using (question_id)
                                  where q.treb_subtask = 'outlier_detection'""").fetchall()
    controls = [r for r in outliers if r[1] is None]
    assert 0.2 <= len(controls) / len(outliers) <= 0.5, (len(controls), len(outliers))
    for answer, moved, view in outliers:
        if moved is None:
            assert json.loads(answer) == [["none"]] and view is None
        else:
            cell = json.loads(moved)
            assert cell["kind"] == "set_value" and json.loads(answer) == [cell["row_path"] + cell["col_path"]] and f'"{cell["text"]}"' in view


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
