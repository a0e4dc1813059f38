"""End-to-end: a small build with layout counterfactual sets and paraphrase sets (vars layout_counterfactuals,
paraphrase_sets), every data test on them, a model under test and the baselines answering both, the analyses and the
report's sections; and the CI-scale build without the vars, whose new columns are NULL and analyses empty."""
from __future__ import annotations

import json

import duckdb
import pytest

from support.dbt_project import build_vars, copy_project, run_dbt

VARIANTS = ["original", "paraphrase", "counterfactual"]
ENTRIES = [{"name": "oracle", "backend": "oracle", "sample": 120, "variants": VARIANTS},
           # a model under test (the report's sections are about those); the header_match baseline under its own name
           {"name": "matcher", "backend": "header_match", "sample": 120, "variants": VARIANTS,
            "formats": ["html", "markdown"]}]


@pytest.fixture(scope="module")
def variants_project(tmp_path_factory):
    project = copy_project(tmp_path_factory.mktemp("variants") / "project")
    run_dbt(project, "build", "--vars", build_vars(layout_counterfactuals=8, paraphrase_sets=True,
                                                   eval_models=ENTRIES), artifacts=True)  # run_results.json is read
    return project


@pytest.fixture(scope="module")
def variants_db(variants_project):
    con = duckdb.connect(str(variants_project / "hctqa.duckdb"), read_only=True)
    yield con
    con.close()


def test_the_data_tests_on_the_sets_ran_and_passed_and_the_build_is_one(variants_project, variants_db):
    results = json.loads((variants_project / "target" / "run_results.json").read_text())["results"]
    status = {r["unique_id"].split(".")[2]: r["status"] for r in results if r["unique_id"].startswith("test.")}
    for name in ("assert_counterfactual_answers_identical", "assert_counterfactual_pairs_differ_in_one_property",
                 "assert_paraphrase_sets_consistent", "assert_no_duplicate_question_text_per_table",
                 "assert_sql_literals_appear_in_question", "assert_questions_have_one_non_empty_answer"):
        assert status.get(name) == "pass", (name, status.get(name))
    assert variants_db.execute("select state from main.build_status").fetchone() == ("complete",)


def test_toggles_keep_their_bases_data_and_change_one_property(variants_db):
    rows = variants_db.execute("""
        select t.table_id, t.counterfactual_property, t.counterfactual_has_property, t.relational_csv = b.relational_csv,
               t.html != b.html, t.counterfactual_set_id = b.counterfactual_set_id, b.variant
        from main.benchmark_tables as t join main.benchmark_tables as b on b.table_id = t.original_table_id
        where t.variant = 'counterfactual'""").fetchall()
    props = {r[1] for r in rows}
    assert len({r[0].split("--cf--")[0] for r in rows}) == 8 and len(props) >= 6, props
    assert all(same_data and set_named and base == "original" for *_, same_data, _, set_named, base in rows)
    assert all(html_differs for *_, html_differs, _, _ in rows)  # the rules too: HTML shows them
    # each toggle's own flag is what counterfactual_has_property says, and its base's the other way round
    for prop in props - {"borders"}:
        flags = variants_db.execute(f"""
            select t.counterfactual_has_property, t.{prop}, b.{prop} from main.benchmark_tables as t
            join main.benchmark_tables as b on b.table_id = t.original_table_id
            where t.counterfactual_property = '{prop}'""").fetchall()
        assert all(has == toggle == (not base) for has, toggle, base in flags), (prop, flags)


def test_every_toggle_asks_its_bases_questions_with_their_answers(variants_db):
    rows = variants_db.execute("""
        select q.question_id, q.question = b.question, q.sql = b.sql, q.answer_gt = b.answer_gt, q.family
        from main.benchmark_questions as q join main.benchmark_questions as b on b.question_id = q.original_question_id
        where q.variant = 'counterfactual'""").fetchall()
    assert len(rows) > 100 and all(same_q and same_sql and same_answer for _, same_q, same_sql, same_answer, _ in rows)
    invariant = {n for (n,) in variants_db.execute(
        "select name from intermediate.int_registry_catalog where kind = 'families' "
        "and json_extract_string(attributes, '$.kind') = 'sql'").fetchall()}
    assert {r[4] for r in rows} <= invariant


def test_paraphrase_sets_restate_every_question_with_its_answer(variants_db):
    counts = variants_db.execute("""
        select count(distinct paraphrase_set_id) filter (where variant = 'original'),
               count(*) filter (where variant = 'original'),
               min(n), count(*) filter (where variant = 'paraphrase')
        from main.benchmark_questions
        left join (select paraphrase_set_id, count(*) as n from main.benchmark_questions
                   where paraphrase_set_id is not null group by all) using (paraphrase_set_id)
        where source = 'synthetic' and variant in ('original', 'paraphrase')""").fetchone()
    n_sets, n_originals, smallest, n_restated = counts
    assert n_sets == n_originals and smallest >= 3 and n_restated >= 2 * n_originals


def test_the_vars_leave_the_benchmarks_own_questions_and_tables_as_they_were(variants_db, benchmark_base):
    base = duckdb.connect(str(benchmark_base / "hctqa.duckdb"), read_only=True)
    try:
        for mart, key, added in (("benchmark_tables", "table_id", "counterfactual_set_id"),
                                 ("benchmark_questions", "question_id", "paraphrase_set_id")):
            cols = [c for (c,) in base.execute(
                "select column_name from information_schema.columns where table_schema = 'main' and table_name = ? "
                "and column_name not in ('build_fingerprint', ?) order by ordinal_position", [mart, added]).fetchall()]
            listed = ", ".join(f'"{c}"::varchar' for c in cols)
            query = (f"select md5(string_agg(row({listed})::varchar, chr(30) order by {key})), count(*) "
                     f"from main.{mart} where variant = 'original'")
            assert variants_db.execute(query).fetchone() == base.execute(query).fetchone(), mart
            assert base.execute(f"select count(*) from main.{mart} where {added} is not null").fetchone() == (0,)
    finally:
        base.close()


def test_the_analyses_and_the_report_sections(variants_project, variants_db):
    effects = variants_db.execute("""
        select model_name, count(*), max(abs(effect)) filter (where model_name = 'oracle'),
               bool_and(ci_low <= effect and effect <= ci_high), sum(n_pairs)
        from main.analysis_layout_effect where metric = 'f1' and scoring_mode = 'strict' group by all
        order by model_name""").fetchall()
    assert [r[0] for r in effects] == ["matcher", "oracle"]
    assert effects[1][2] == 0.0 and all(r[3] and r[4] > 100 for r in effects)
    consistency = dict(variants_db.execute("""
        select model_name, min(share_identical) from main.analysis_paraphrase_consistency
        where metric = 'f1' and scoring_mode = 'strict' group by all""").fetchall())
    assert consistency["oracle"] == 1.0 and 0.0 < consistency["matcher"] <= 1.0
    report = (variants_project / "reports" / "index.html").read_text(encoding="utf-8")
    for title in ("Does a layout property cause the errors?", "Does the wording change the answer?"):
        assert title in report
    for figure in ("layout_effect.png", "paraphrase_consistency.png"):
        assert (variants_project / "reports" / "figures" / figure).stat().st_size > 0


def test_a_build_without_the_vars_has_the_columns_null_and_the_analyses_empty(ci_db):
    assert ci_db.execute("""select count(*) from main.benchmark_tables where counterfactual_set_id is not null
                            or counterfactual_property is not null or counterfactual_has_property is not null
                         """).fetchone() == (0,)
    assert ci_db.execute("select count(*) from main.benchmark_questions where paraphrase_set_id is not null "
                         "or variant not in ('original', 'obfuscated')").fetchone() == (0,)
    for mart in ("analysis_layout_effect", "analysis_paraphrase_consistency", "analysis_seed_variance"):
        assert ci_db.execute(f"select count(*) from main.{mart}").fetchone() == (0,), mart
