"""End-to-end: a real `dbt build` of the generator at CI scale, and small builds for determinism."""
from __future__ import annotations

import hashlib

from support.dbt_project import copy_project, run_dbt

LEAF_PROPERTIES = [
    "balanced_column_nesting", "unbalanced_column_nesting", "symmetric_column_nesting", "asymmetric_column_nesting",
    "balanced_row_nesting", "unbalanced_row_nesting", "symmetric_row_nesting", "asymmetric_row_nesting",
    "global_column_aggregation", "local_column_aggregation", "explicit_column_aggregation", "implicit_column_aggregation",
    "global_row_aggregation", "local_row_aggregation", "explicit_row_aggregation", "implicit_row_aggregation",
    "row_group_label", "split_header_cell", "standard_relational_table",
]


def test_every_domain_and_variant_is_built(ci_db):
    n_tables, n_domains = ci_db.execute(
        "select count(*), count(distinct dataset) from benchmark_tables where source = 'synthetic' "
        "and variant = 'original'").fetchone()
    n_variants, n_replicas = ci_db.execute("select count(*), sum(replicas) from intermediate.int_table_variants").fetchone()
    assert n_domains == 7
    # one replica per variant at CI scale, times the weights of its option values
    assert n_tables == n_replicas and n_variants < n_tables


def test_values_follow_their_value_model(ci_db):
    # the expectations seed covers every domain, and the build's values obey a few of them per table kind
    domains = ci_db.execute("select count(distinct domain) from staging.stg_domain_value_expectations").fetchone()[0]
    assert domains == 7
    means = dict(ci_db.execute("""
        with cells as (
            select value, map_from_entries(list_zip(list_concat(row_attributes, col_attributes),
                                                    list_concat(row_labels, col_labels))) as labels
            from intermediate.int_relational_rows)
        select k, avg(value) from (
            select value, labels['Sky_Condition'] as k from cells union all
            select value, labels['Severity'] from cells union all
            select value, labels['Trade_Direction'] from cells)
        where k is not null group by k""").fetchall())
    assert means["Snowy"] < means["Clear"] and means["Fatal"] < means["Slight"] and means["Imports"] < means["Exports"]
    # distinct within every table, and inside the measure's range
    dup, outside = ci_db.execute("""
        select (select count(*) from (select table_id, value from intermediate.int_relational_rows
                                      group by all having count(*) > 1)),
               count(*) filter (where r.value < cast(v.min as double) or r.value > cast(v.max as double))
        from intermediate.int_relational_rows as r
        join intermediate.int_table_instances as i using (table_id)
        join staging.stg_table_templates as t on t.domain = i.domain and t.template_name = i.template_name
        join staging.stg_domain_value_ranges as v on v.domain = t.domain and v.shortcut = t."values"
                                                  and v.condition is null""").fetchone()
    assert dup == 0 and outside == 0


def test_all_nineteen_properties_occur(ci_db):
    counts = ci_db.execute("select " + ", ".join(f"count(*) filter (where {p})" for p in LEAF_PROPERTIES)
                           + " from benchmark_tables").fetchone()
    missing = [p for p, n in zip(LEAF_PROPERTIES, counts) if n == 0]
    assert not missing, f"properties that never occur: {missing}"


def test_numbers_print_as_integers_or_two_decimals(ci_db):
    rows = ci_db.execute("""
        select c.text, i.value_is_integer from intermediate.int_hct_cells c join intermediate.int_table_instances i using (table_id)
        where c.role = 'data'""").fetchall()
    for text, is_int in rows:
        if is_int:
            assert "." not in text, text
        else:
            assert len(text.split(".")[1]) == 2, text


def test_relational_csv_has_attribute_header_and_value(ci_db):
    csv, attrs = ci_db.execute("""
        select t.relational_csv, list_concat(i.row_attributes, i.col_attributes)
        from benchmark_tables t join intermediate.int_table_instances i using (table_id) limit 1""").fetchone()
    assert csv.splitlines()[0] == ",".join(attrs) + ",Value"


def test_html_row_headers_read_next_to_their_first_row_and_cells_are_padded(ci_db):
    import re
    tables = ci_db.execute("select table_id, html, implicit_row_aggregation from benchmark_tables "
                           "where source = 'synthetic'").fetchall()
    spanning_implicit = 0
    for table_id, html, implicit in tables:
        assert re.match(r'<table( border="1")? cellpadding="4">', html), table_id
        body = html.split("<tbody>", 1)[1]
        for th in re.findall(r"<th[^>]*>", body):
            if "rowspan=" in th:
                # the first row of a group holds its implicit aggregate: the label reads next to it
                assert 'valign="top"' in th, (table_id, th)
                spanning_implicit += bool(implicit)
    assert spanning_implicit > 0  # the case the alignment is for occurs in the CI build


def _fingerprint(project) -> str:
    import duckdb
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    tables = con.execute("select table_id, html, csv, markdown, relational_csv from benchmark_tables order by table_id").fetchall()
    questions = con.execute("select question_id, question, sql, answer_gt from benchmark_questions order by question_id").fetchall()
    con.close()
    exports = [(project / "exports" / name).read_bytes() for name in ("benchmark_tables.parquet", "benchmark_questions.parquet", "hctqa_qaps.json")]
    return hashlib.sha256(repr((tables, questions, exports)).encode()).hexdigest()


def test_same_seed_gives_byte_identical_outputs_and_another_seed_differs(tmp_path):
    select = ["--select", "+benchmark_exports", "--exclude", "test_type:data"]
    one = "{replicas: 1, domains: [students]}"  # the smallest domain: three builds from nothing
    a = copy_project(tmp_path / "a")
    b = copy_project(tmp_path / "b")
    run_dbt(a, "build", *select, "--vars", one)
    run_dbt(b, "build", *select, "--vars", one)
    assert _fingerprint(a) == _fingerprint(b)
    run_dbt(b, "build", *select, "--vars", "{replicas: 1, domains: [students], seed: 7}")
    assert _fingerprint(a) != _fingerprint(b)
