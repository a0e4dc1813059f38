"""End-to-end: the text-obfuscated variant in the CI-sized build (every synthetic table and
question has one twin, words mapped, numbers, layout and queries kept, the round-trip check passed), the
obfuscation gap of the baselines on a small build, and var obfuscated_variants: false."""
from __future__ import annotations

import re

import duckdb

from support.dbt_project import build_vars, clone, copy_project, query, run_dbt
from generator_py.obfuscation import KEPT_WORDS

NUMBERS = re.compile(r"\d+(?:\.\d+)?")
TAGS = re.compile(r"<[^>]*>")
SAME_IN_BOTH = ("source", "dataset", "template_name", "variant_id", "replica", "n_rows", "n_columns", "n_cells",
                "n_data_cells", "n_aggregate_cells", "column_header_depth", "row_header_depth",
                "balanced_column_nesting", "row_group_label", "local_row_aggregation", "standard_relational_table")


def _pairs(ci_db, mart: str, key: str, columns: str):
    return ci_db.execute(
        f"select o.{key}, x.{key}, {columns} from main.{mart} as o "
        f"inner join main.{mart} as x on x.original_{key} = o.{key} and x.variant = 'obfuscated' "
        f"where o.variant = 'original' order by o.{key}").fetchall()


def test_every_synthetic_table_and_question_has_one_recognisable_twin(ci_db):
    for mart, key in (("benchmark_tables", "table_id"), ("benchmark_questions", "question_id")):
        counts = dict(ci_db.execute(f"select variant, count(*) from main.{mart} group by variant").fetchall())
        assert set(counts) == {"original", "obfuscated"}
        synthetic = ci_db.execute(f"select count(*) from main.{mart} where source = 'synthetic' and variant = "
                                  "'original'").fetchone()[0]
        assert counts["obfuscated"] == synthetic > 0
        assert ci_db.execute(f"select count(*) from main.{mart} where variant = 'original' and "
                             f"original_{key} != {key}").fetchone()[0] == 0
        twins = _pairs(ci_db, mart, key, "1")
        assert len(twins) == synthetic and all(x.startswith(o.split("--q")[0] if key == "question_id" else o)
                                               and "--obf" in x for o, x, _ in twins)
    assert ci_db.execute("select count(*) from main.benchmark_tables where variant = 'obfuscated' and "
                         "source != 'synthetic'").fetchone()[0] == 0


def test_twins_keep_layout_numbers_and_properties_and_lose_the_words(ci_db):
    kept = KEPT_WORDS | {w for (w,) in ci_db.execute(
        "select word from intermediate.int_obfuscation_words where replacement is null").fetchall()}
    assert {"total", "of"} <= kept
    rows = ci_db.execute(
        "select o.html, x.html, o.markdown, x.markdown, o.relational_csv, x.relational_csv, o.title, x.title, "
        + ", ".join(f"o.{c} = x.{c}" for c in SAME_IN_BOTH) +
        " from main.benchmark_tables as o inner join main.benchmark_tables as x "
        "on x.original_table_id = o.table_id and x.variant = 'obfuscated' where o.variant = 'original'").fetchall()
    assert rows
    for o_html, x_html, o_md, x_md, o_rel, x_rel, o_title, x_title, *same in rows:
        assert all(same)
        assert TAGS.findall(o_html) == TAGS.findall(x_html)  # the same cells, spans, classes
        assert NUMBERS.findall(o_html) == NUMBERS.findall(x_html)
        assert NUMBERS.findall(o_rel) == NUMBERS.findall(x_rel)
        words = {w.lower() for w in re.findall(r"[^\W\d_]{2,}", o_md + o_rel + o_title)} - kept
        shown = {w.lower() for w in re.findall(r"[^\W\d_]{2,}", x_md + x_rel + x_title)}
        assert words and not words & shown, sorted(words & shown)[:5]


def test_twin_questions_keep_their_query_and_answer_shape(ci_db):
    rows = _pairs(ci_db, "benchmark_questions", "question_id",
                  "o.template_id = x.template_id and o.family = x.family and o.phrasing = x.phrasing "
                  "and o.answer_n_rows = x.answer_n_rows and o.answer_n_values = x.answer_n_values "
                  "and o.aggregations = x.aggregations and o.row_filter = x.row_filter, "
                  "o.sql, x.sql, o.answer_gt, x.answer_gt, o.question, x.question, x.table_id, x.sql_literals")
    assert rows
    tables = dict(ci_db.execute("select table_id, html from main.benchmark_tables where variant = 'obfuscated'")
                  .fetchall())
    for _, _, same, o_sql, x_sql, o_gt, x_gt, o_q, x_q, x_table, literals in rows:
        assert same
        assert re.sub(r"'[^']*'|\b[A-Za-z_]+\b", "_", o_sql) == re.sub(r"'[^']*'|\b[A-Za-z_]+\b", "_", x_sql)
        assert sorted(NUMBERS.findall(o_gt)) == sorted(NUMBERS.findall(x_gt))
        assert sorted(NUMBERS.findall(o_q)) == sorted(NUMBERS.findall(x_q))
        for literal in literals:  # every label the question names is in the obfuscated table (not thresholds)
            if re.search(r"[^\W\d_]", literal):
                assert literal.replace("&", "&amp;") in tables[x_table], (x_table, literal)


def test_obfuscated_relations_have_the_column_types_of_the_originals(ci_db):
    def types(name):
        return dict(ci_db.execute("select column_name, data_type from information_schema.columns "
                                  "where table_schema = 'intermediate' and table_name = ?", [name]).fetchall())
    for original in ("int_table_instances", "int_relational_rows", "int_question_instances"):
        mine, theirs = types(original.replace("int_", "int_obfuscated_", 1)), types(original)
        assert set(theirs) <= set(mine)
        for column, kind in theirs.items():  # lists stay lists (never their text), text stays text
            assert kind.endswith("[]") == mine[column].endswith("[]"), (original, column, mine[column], kind)
            assert (kind == "VARCHAR") == (mine[column] == "VARCHAR"), (original, column, mine[column], kind)


def test_round_trip_check_covered_every_question_and_passed(ci_db):
    n, checked, sql_ok, restored = ci_db.execute(
        "select count(*), count(sql_gives_answer), count(*) filter (where sql_gives_answer), "
        "count(*) filter (where restores_original) from intermediate.int_obfuscation_check").fetchone()
    questions = ci_db.execute("select count(*) from main.benchmark_questions where variant = 'obfuscated'").fetchone()[0]
    assert n == checked == sql_ok == restored == questions > 0  # cross_check: true checks every SQL text


def test_composition_counts_originals_only(ci_db):
    n_tables, n_questions = ci_db.execute(
        "select sum(n_tables), sum(n_questions) from main.analysis_benchmark_composition where facet = 'domain'"
    ).fetchone()
    assert (n_tables, n_questions) == ci_db.execute(
        "select (select count(*) from main.benchmark_tables where variant = 'original'), "
        "(select count(*) from main.benchmark_questions where variant = 'original')").fetchone()


def test_images_are_drawn_for_the_originals_only(ci_db):
    imaged = ci_db.execute("select t.variant, count(*) from main.benchmark_table_images as i inner join "
                           "main.benchmark_tables as t using (table_id) group by 1").fetchall()
    originals = ci_db.execute("select count(*) from main.benchmark_tables where variant = 'original'").fetchone()[0]
    assert imaged == [("original", originals)]


def test_baselines_score_both_variants_side_by_side(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    models = [{"name": n, "backend": n, "sample": 60, "variants": ["original", "obfuscated"]}
              for n in ("oracle", "header_match")] + [{"name": "plain", "backend": "oracle", "sample": 60}]
    # the composition also counts the fine-tuning exports, which the benchmark base leaves out
    run_dbt(project, "build", "--select", "models/evaluation", "models/choice", "models/analysis", "choice_statements",
            "stg_choice_statements", "benchmark_choice_items",
            "benchmark_choice_item_counts", "benchmark_finetune_splits", "benchmark_finetune_exports",
            "--vars", build_vars(eval_models=models))
    gap = query(project, "select model_name, n_pairs, value_original, value_obfuscated, gap "
                         "from main.analysis_obfuscation_gap where metric = 'f1' and scoring_mode = 'strict' "
                         "order by model_name")
    assert [g[0] for g in gap] == ["header_match", "oracle"]  # `plain` answered the originals only
    assert gap[1][1:] == (60, 1.0, 1.0, 0.0)
    assert gap[0][1] == 60
    # the sample is drawn from the originals: `plain` got the same 60 originals as the others
    asked = query(project, "select model_name, count(*) filter (where q.variant = 'original'), "
                           "count(*) filter (where q.variant = 'obfuscated') from main.eval_requests as r "
                           "inner join main.benchmark_questions as q using (question_id) group by 1 order by 1")
    assert asked == [("header_match", 60, 60), ("oracle", 60, 60), ("plain", 60, 0)]
    same = query(project, "select count(distinct question_id) from main.eval_requests as r inner join "
                          "main.benchmark_questions as q using (question_id) where q.variant = 'original'")
    assert same == [(60,)]
    # eval_summary averages the variants apart: 60 predictions each, never pooled
    summary = query(project, "select model_name, variant, n from main.eval_summary where level = 'overall' "
                             "and metric = 'f1' and scoring_mode = 'strict' and model_name <> 'plain' order by 1, 2")
    assert summary == [("header_match", "obfuscated", 60), ("header_match", "original", 60),
                       ("oracle", "obfuscated", 60), ("oracle", "original", 60)]
    # the baselines alone fill no report section (they enter none): the report lists the question with what
    # answers it
    report = (project / "reports" / "index.html").read_text()
    unanswered = report[report.index("Not answered by this build</h2>"):]
    assert "obfuscation_gap.png" not in report and "`variants: [original, obfuscated]`" in unanswered


def test_bad_variants_key_is_an_error_naming_the_entry(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    models = [{"name": "oracle", "backend": "oracle", "variants": ["original", "scrambled"]}]
    proc = run_dbt(project, "build", "--select", "eval_requests", "--vars", build_vars(eval_models=models), check=False)
    assert proc.returncode != 0
    assert "eval_models entry 1" in proc.stdout and "key `variants`" in proc.stdout


def test_variants_off_builds_the_originals_only(tmp_path):
    project = copy_project(tmp_path / "project")
    # a build from nothing: the smallest domain
    run_dbt(project, "build", "--select", "+benchmark_questions", "+benchmark_tables", "--exclude", "resource_type:test",
            "--vars", build_vars(obfuscated_variants=False, domains=["students"]))
    for mart in ("benchmark_tables", "benchmark_questions"):
        assert query(project, f"select distinct variant from main.{mart}") == [("original",)]
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        names = {r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()}
    finally:
        con.close()
    assert "int_table_grid" in names and not {n for n in names if "obfuscat" in n}
