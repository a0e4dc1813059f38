"""End-to-end: over a CI-scale build, count the questions and table aggregates no person would ask or
print and require none. Each check also asserts that what it guards occurs at
all, so that it cannot pass on an empty set."""
from __future__ import annotations

import json
import re

from support.wording_patterns import PATTERNS, count_problems, vocabulary

ADMITTED = """
    with admitted as (
        select t.domain, t.template_name,
               coalesce(string_split(r.aggregations, ';'), ['sum', 'avg', 'min', 'max']) as aggs
        from staging.stg_table_templates as t
        left join staging.stg_domain_value_ranges as r on r.domain = t.domain and r.shortcut = t."values"
    )
"""


def test_questions_use_only_the_aggregations_their_measure_admits(ci_db):
    bad, total = ci_db.execute(ADMITTED + """
        select count(*) filter (where exists (select 1 from unnest(q.aggregations) as u(f) where not list_contains(a.aggs, f))),
               count(*) filter (where len(q.aggregations) > 0)
        from benchmark_questions as q
        inner join intermediate.int_table_instances as i using (table_id)
        inner join admitted as a on a.domain = i.domain and a.template_name = i.template_name""").fetchone()
    assert total > 1000
    assert bad == 0, f"{bad} questions aggregate a measure in a way it does not admit"
    # temperatures are averaged, never summed; counts are summed
    sums = dict(ci_db.execute("""
        select dataset, count(*) filter (where list_contains(aggregations, 'sum')) from benchmark_questions
        where dataset in ('weather', 'students', 'pollution', 'accidents') group by dataset""").fetchall())
    assert sums["weather"] == sums["students"] == sums["pollution"] == 0 and sums["accidents"] > 0


def test_tables_show_only_admitted_aggregates(ci_db):
    bad = ci_db.execute(ADMITTED + """
        select count(*) from intermediate.int_table_instances as i
        inner join admitted as a on a.domain = i.domain and a.template_name = i.template_name
        where not list_contains(a.aggs, i.agg_fun)""").fetchone()[0]
    assert bad == 0


def _non_additive(ci_db) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for domain, name in ci_db.execute(
            "select domain, attribute_name from staging.stg_domain_attributes where lower(additive) = 'no'").fetchall():
        out.setdefault(domain, set()).add(name)
    return out


def test_no_sum_or_average_across_parts_of_a_non_additive_attribute(ci_db):
    non_additive = _non_additive(ci_db)
    assert non_additive.get("food_import_export") == {"Trade_Direction"}
    rows = ci_db.execute("""
        select q.dataset, q.question, q.spec_json, list_concat(i.row_attributes, i.col_attributes)
        from benchmark_questions as q inner join intermediate.int_table_instances as i using (table_id)
        where list_has_any(q.aggregations, ['sum', 'avg'])""").fetchall()
    bad, fixed, grouped = [], 0, 0
    for dataset, question, spec_json, attributes in rows:
        spec = json.loads(spec_json)
        for name in non_additive.get(dataset, set()) & set(attributes):
            values = [f["values"] for f in spec["filters"] if f["attribute"] == name]
            if name in spec["group_by"]:
                grouped += 1
            elif values and len(values[0]) == 1:
                fixed += 1
            else:
                bad.append(question)
    assert fixed > 0 and grouped > 0
    assert not bad, f"{len(bad)} questions add up values across a non-additive attribute, e.g. {bad[:3]}"


def test_table_aggregates_do_not_add_across_parts(ci_db):
    bad, fixed = ci_db.execute("""
        with na as (select domain, list(attribute_name) as names from staging.stg_domain_attributes
                    where lower(additive) = 'no' group by domain),
        agg as (
            select c.table_id, i.agg_fun, na.names, list_concat(i.row_attributes, i.col_attributes) as attrs,
                   list_concat(list_slice(i.row_attributes, 1, len(c.row_group)),
                               list_slice(i.col_attributes, 1, len(c.col_group))) as fixed_attrs
            from intermediate.int_hct_cells as c
            inner join intermediate.int_table_instances as i using (table_id)
            inner join na on na.domain = i.domain
            where c.role = 'aggregate' and i.agg_fun in ('sum', 'avg')
              and list_has_any(list_concat(i.row_attributes, i.col_attributes), na.names)
        )
        -- a cell over a row group and a column group fixes the attributes of those groups' levels
        select count(*) filter (where len(list_filter(names, lambda x: list_contains(attrs, x) and not list_contains(fixed_attrs, x))) > 0),
               count(*)
        from agg""").fetchone()
    assert fixed > 0, "no table sums a non-additive domain's measure at all"
    assert bad == 0, f"{bad} aggregate cells add up values across a non-additive attribute"


def test_answer_rows_of_a_question_have_one_width(ci_db):
    # the rule: an instance whose answer would hold a level missing in an unbalanced branch is redrawn
    rows = ci_db.execute("select question_id, answer_rows from benchmark_questions where source = 'synthetic'").fetchall()
    mixed = [qid for qid, answer in rows if any(v is None for row in json.loads(answer) for v in row)]
    assert not mixed, f"{len(mixed)} answers hold a missing level, e.g. {mixed[:3]}"
    unbalanced = ci_db.execute("""
        select count(*) from benchmark_questions as q inner join benchmark_tables as t using (table_id)
        where t.unbalanced_row_nesting and q.template_id in (14, 15)""").fetchone()[0]
    assert unbalanced > 50  # the rule does not take SQL14/15 away from unbalanced tables


def test_sql15_says_a_group_qualifies_when_one_member_passes(ci_db):
    rows = ci_db.execute("select question, spec_json from benchmark_questions where template_id = 15").fetchall()
    groups = 0
    for question, spec_json in rows:
        spec = json.loads(spec_json)
        projected = [s["name"] for s in spec["select"] if s["kind"] == "attribute"]
        if set(spec["semi_join"]["attributes"]) < set(projected):
            groups += 1
            assert "for at least one" in question, question
        else:
            assert "for at least one" not in question, question
    assert groups > 50


def test_natural_wording_patterns_are_gone(ci_db):
    # every pattern of tests/support/wording_patterns.py, counted over every domain with its vocabulary
    vocab = vocabulary(ci_db.execute("select * from staging.stg_domain_attributes").df())
    rows = ci_db.execute("select question_id, dataset, question, spec_json from benchmark_questions "
                         "where source = 'synthetic'").fetchall()
    counts, examples, n = count_problems(rows, vocab)
    assert n > 1000
    assert set(counts) == set(PATTERNS)
    assert not any(counts.values()), {p: (c, examples[p]) for p, c in counts.items() if c}
    questions = [r[2] for r in rows]
    assert sum(1 for q in questions if ", for each " in q) > 100  # grouping still said, at the end
    assert sum(1 for q in questions if "for each age group" in q or "for each time of day" in q) > 20
    # values with their head noun, from the vocabulary (value_phrase), in the domains that have one
    for said in (" areas", " days", " term", " programmes"):
        assert sum(1 for q in questions if said in q) > 20, said
    assert not [q for q in questions if re.search(r"\b(?:Civil|Mechanical|Electrical|Chemical)\b(?! Engineering)"
                                                  r"|\bon Week(?:day|end)\b", q)]


def test_values_follow_the_most_specific_range(ci_db):
    # weather: Singapore is never cold, Norway's January never warm (seeds/domain_value_ranges.csv)
    def extent(where: str):
        return ci_db.execute(f"""
            with cells as (
                select value, map_from_entries(list_zip(list_concat(row_attributes, col_attributes),
                                                        list_concat(row_labels, col_labels))) as labels
                from intermediate.int_relational_rows where table_id like 'syn--weather--%')
            select count(*), min(value), max(value) from cells where {where}""").fetchone()
    n, lo, hi = extent("labels['Country'] = 'Singapore'")
    assert n > 100 and 25 <= lo and hi <= 34
    n, lo, hi = extent("labels['Country'] = 'Norway' and labels['Month'] = 'January'")
    assert n > 10 and -22 <= lo and hi <= 3


def test_coordination_scope_is_clear(ci_db):
    # "Private or Mixed projects of type Shopping mall or Hotel", not "Private or Mixed Shopping mall or Hotel
    # projects"; "Female graduates with a Bachelor or Master degree", not "Female Bachelor or Master graduates"
    rows = ci_db.execute("""select dataset, question, spec_json from benchmark_questions
                            where dataset in ('constructions', 'graduations')""").fetchall()
    # (first attribute, the levels of the stacked one, most specific first, what the question then says)
    stacked = {"constructions": ("Funding", ("Project_Type", "Sector"), " projects of type "),
               "graduations": ("Gender", ("Degree_Level",), " graduates with a ")}
    both = {d: 0 for d in stacked}
    for dataset, question, spec_json in rows:
        first, second, said = stacked[dataset]
        filters = {f["attribute"]: f["values"] for f in json.loads(spec_json)["filters"]}
        # of a hierarchy (Sector > Project_Type) only the most specific level present is said
        level = next((a for a in second if a in filters), None)
        if first in filters and level and (len(filters[first]) > 1 or len(filters[level]) > 1):
            both[dataset] += 1
            assert said in question, question
    assert min(both.values()) > 50, both
