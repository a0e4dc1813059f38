"""The two-table and OLAP families (suite beyond): the pairing of tables, the questions drawn on tables of every seed
domain, their SQL run by DuckDB against the generator's answer and SQLite's equivalent query, what the questions say,
and that the Table III draws do not change beside them."""
from __future__ import annotations

import json
import random

import duckdb
import pandas as pd
import pytest
import sqlglot
from sqlglot import exp

from generator_py.answers.sql_text_answers import cross_check, duckdb_answers
from generator_py.questions import generate_questions, load_domain_nl
from generator_py.questions.families import ALL_FAMILIES, FAMILIES, families_for_suites
from generator_py.questions.families.olap import OlapDrilldown, OlapRollup
from generator_py.questions.families.registry import FamilyRegistry
from generator_py.questions.families.sql_text import TABLE_NAMES
from generator_py.questions.table_model import TableModel
from generator_py.questions.table_pairs import pairing_key, partners_of_tables, table_partners
from generator_py.questions.types import Measure
from generator_py.tables.relational import ShownAggregate
from support import treb_fixtures
from support.beyond_fixtures import beyond_nl_rows, period_partner, tables_with_year, with_group_aggregates

BEYOND = families_for_suites(["hctqa", "beyond"])
SUITE = [f for f in ALL_FAMILIES.subset(lambda f: f.suite == "beyond").listing()]


@pytest.fixture(scope="module")
def beyond_questions(seed_frames, toy_tables):
    """Both suites drawn on three tables of every seed domain, each with a partner of later years."""
    rows = beyond_nl_rows(seed_frames)
    out = []
    for dom, tn in toy_tables.domains():
        nl = load_domain_nl(rows, seed_frames["nl_table_meanings"], seed_frames["domain_attributes"], dom, tn,
                            families=BEYOND)
        for i, t in enumerate(tables_with_year(toy_tables, dom, 3)):
            partner = period_partner(t, f"{t.table_id}--later")
            out.append((t, partner, nl, generate_questions(t, nl, 5, families=BEYOND, partner=partner)))
    return out


def _frames(questions) -> tuple[pd.DataFrame, pd.DataFrame]:
    qs = [q for *_, qq in questions for q in qq if q.kind == "sql_text"]
    tables = {t.table_id: t for t, p, *_ in questions} | {p.table_id: p for t, p, *_ in questions}
    frame = pd.DataFrame([{"question_id": q.question_id, "table_id": q.table_id, "family": q.family,
                           "tables": list(q.tables), "sql": q.sql, "spec_json": json.dumps(q.spec),
                           "py_answer_json": json.dumps(q.answer_rows)} for q in qs])
    return frame, treb_fixtures.relational_rows(list(tables.values()))


def test_every_family_of_the_suite_is_asked_in_every_domain(beyond_questions):
    asked: dict[str, set] = {}
    for t, _, _, qs in beyond_questions:
        asked.setdefault(t.domain, set()).update(q.family for q in qs if q.suite == "beyond")
    suite = {e.name for e in SUITE}
    assert len(suite) == 6 and all(fams == suite for fams in asked.values()), asked


def test_duckdb_runs_each_sql_to_the_generators_answer_and_sqlite_agrees(beyond_questions):
    frame, rows = _frames(beyond_questions)
    answers = duckdb_answers(frame.sort_values("question_id"), rows).to_pandas()
    got: dict[str, list] = {}
    for qid, values in zip(answers["question_id"], answers["answer_values"]):
        got.setdefault(qid, []).append(list(values))
    for qid, generated in zip(frame["question_id"], frame["py_answer_json"]):
        assert got[qid] == json.loads(generated), qid  # the same rows in the same order
    checked = cross_check(frame, answers, rows).to_pandas()
    assert len(checked) == len(frame) > 100 and checked["agrees"].all()


def test_the_check_catches_a_wrong_answer_and_a_tie(beyond_questions):
    frame, rows = _frames(beyond_questions)
    answers = duckdb_answers(frame, rows).to_pandas()
    wrong = frame.copy()
    first = wrong.index[wrong["family"] == "two_table_join"][0]
    (value,), = json.loads(wrong.at[first, "py_answer_json"])
    wrong.at[first, "py_answer_json"] = json.dumps([[str(float(value) + 1)]])
    out = cross_check(wrong, answers, rows).to_pandas()
    assert out.loc[~out["agrees"], "question_id"].tolist() == [wrong.at[first, "question_id"]]
    # two parts tied at the top: SQLite's drill-down returns both, so it cannot agree with DuckDB's one row
    tied = pd.DataFrame({"Country": ["A", "A", "B"], "Year": ["2020"] * 3, "Value": [1.0, 2.0, 3.0]})
    spec = {"function": "sum", "direction": "desc", "filters": [], "group_by": ["Country"]}
    con = duckdb.connect()
    con.register("T", tied)
    sqlite = __import__("sqlite3").connect(":memory:")
    tied.to_sql("T", sqlite, index=False)
    assert len(con.execute(OlapDrilldown().sql(spec)).fetchall()) == 1
    assert len(sqlite.execute(OlapDrilldown().sqlite_sql(spec)).fetchall()) == 2


def test_questions_state_every_literal_and_read_their_tables(beyond_questions):
    n_two = 0
    for t, partner, _, qs in beyond_questions:
        for q in qs:
            if q.suite != "beyond":
                continue
            family = ALL_FAMILIES.get(q.family)
            assert q.kind == "sql_text" and q.template_id is None and q.answer_type == "values"
            for lit in q.sql_literals:
                assert lit in q.question, (q.question_id, lit, q.question)
            assert len(q.tables) == family.n_tables == len(q.table_roles) == len(q.table_conditions)
            assert q.tables[0] == t.table_id and q.table_roles == family.table_roles
            assert {x.name for x in sqlglot.parse_one(q.sql, read="duckdb").find_all(exp.Table)} == \
                set(TABLE_NAMES[family.n_tables]), q.sql
            if family.n_tables == 2:
                n_two += 1
                assert q.tables[1] == partner.table_id
                # each table named, or both together (a union)
                assert "both tables" in q.question or ("first" in q.question and "second table" in q.question), \
                    q.question
    assert n_two > 20


def test_olap_sql_uses_olap_grouping_and_sqlite_a_union(beyond_questions):
    seen = set()
    for *_, qs in beyond_questions:
        for q in qs:
            family = ALL_FAMILIES.get(q.family)
            if family.olap_operation is None:
                continue
            seen.add(family.olap_operation)
            sqlite = family.sqlite_sql(q.spec)
            if family.olap_operation == "roll-up":
                assert "GROUP BY ROLLUP (" in q.sql and "UNION ALL" in sqlite and "ROLLUP" not in sqlite
                assert q.answer_rows[-1][0] is None and len(q.answer_rows) >= 3  # the parent's row last
            if family.olap_operation == "grouping sets":
                assert "GROUPING SETS (" in q.sql and sqlite.count("UNION ALL") == 2
                assert "for each" in q.question and q.answer_rows[-1][:2] == [None, None]
            if family.olap_operation == "drill-down":
                assert len(q.answer_rows) == 1 and len(q.answer_rows[0]) == 2
    assert seen == {"roll-up", "drill-down", "grouping sets"}


def test_a_rollup_is_not_asked_where_the_table_shows_the_parents_aggregate(toy_tables):
    from dataclasses import replace

    rollup, asked = OlapRollup(), 0
    for t in tables_with_year(toy_tables, "accidents", 12):
        bare = TableModel(replace(t, shown_aggregates=()), None, Measure())
        if not rollup.applicable(bare):
            continue
        spec, _ = rollup.draw(bare, random.Random(3), "paper")
        spec = {**spec, "function": t.agg_fun}  # the function of the table's aggregates
        if not spec["last_on_axis"] or rollup.compute(spec, bare, {}) is None:
            continue
        group, other = tuple(spec["group"]), tuple(spec["other_path"])
        shown = ShownAggregate(*((group, other) if spec["axis"] == "row" else (other, group)), 1.0)
        assert rollup.compute(spec, TableModel(replace(t, shown_aggregates=(shown,)), None, Measure()), {}) is None
        other_fn = {**spec, "function": next(f for f in ("max", "min") if f != t.agg_fun)}
        assert rollup.compute(other_fn, TableModel(replace(t, shown_aggregates=(shown,)), None, Measure()), {})
        asked += 1
    assert asked >= 2


def test_the_hctqa_draws_do_not_change_with_the_suite_added(beyond_questions):
    for t, partner, nl, qs in beyond_questions:
        assert [q for q in qs if q.suite == "hctqa"] == generate_questions(t, nl, 5, families=FAMILIES)


def test_without_a_partner_no_two_table_question_is_asked(beyond_questions):
    t, _, nl, _ = beyond_questions[0]
    alone = generate_questions(t, nl, 5, families=BEYOND)
    assert not [q for q in alone if ALL_FAMILIES.get(q.family).n_tables == 2]
    assert [q for q in alone if q.family.startswith("olap_")]


def _key(rows, table="t", domain="d"):
    return pairing_key(domain, "tpl", ["City", "Year"], rows)


def test_pairing_needs_disjoint_years_and_a_shared_category():
    a = _key([("X", "2015", 1.0), ("Y", "2016", 2.0)])
    later = _key([("X", "2018", 1.0), ("Z", "2019", 2.0)])
    overlapping = _key([("Y", "2016", 1.0)])  # a's year, and no category of the later tables
    elsewhere = _key([("Z", "2020", 1.0)])
    other_domain = _key([("X", "2020", 1.0)], domain="e")
    assert a.period == "Year" and a.periods == {"2015", "2016"} and a.categories == {("X",), ("Y",)}
    partners = table_partners({"a": a, "later": later, "overlapping": overlapping, "elsewhere": elsewhere,
                               "other": other_domain, "none": None}, seed=1)
    assert partners["a"] == "later" and partners["later"] == "a" and partners["elsewhere"] == "later"
    assert "overlapping" not in partners and "other" not in partners and "none" not in partners
    assert _key([("X", "Q1", 1.0)]) is None  # no period attribute: no partner


def test_partners_do_not_depend_on_the_order_of_the_tables(toy_tables):
    tables = tables_with_year(toy_tables, "weather", 8)
    tables += [period_partner(t, f"{t.table_id}--later") for t in tables]
    forward = partners_of_tables(tables, 42)
    assert forward == partners_of_tables(list(reversed(tables)), 42) and len(forward) >= 8
    for a, b in forward.items():
        years = [set(t.frame["Year"]) for t in tables if t.table_id in (a, b)]
        assert not (years[0] & years[1])


def test_groupingsets_reads_one_group_per_attribute(seed_frames):
    from generator_py.questions.families.sql_text import facts_of
    from generator_py.questions.rendering import render_question
    from generator_py.questions.template_syntax import NLRequirements, parse_template

    nl = load_domain_nl(beyond_nl_rows(seed_frames), seed_frames["nl_table_meanings"],
                        seed_frames["domain_attributes"], "accidents", "casualties", families=BEYOND)
    tpl = parse_template("Give the $EXPR number in_$Year $GROUPINGSETS , and overall .", nl.attribute_codes, 70, 1,
                         requirements=NLRequirements(70, (("GROUPINGSETS",),), frozenset({"EXPR", "GROUPINGSETS"})))
    facts = facts_of([{"attribute": "Year", "values": ["2015"]}], aggregates=["sum"], group_by=["Severity", "City"])
    assert render_question(tpl, facts, nl) == \
        "Give the total number in 2015 for each severity, for each city, and overall."


def test_a_family_reads_one_or_two_tables_with_a_role_each():
    family = next(iter(BEYOND.subset(lambda f: f.n_tables == 2).listing()))
    bad = type("Bad", (type(ALL_FAMILIES.get(family.name)),), {"family_id": "bad", "table_roles": ("answer",)})()
    with pytest.raises(Exception, match="n_tables must be 1 or 2 with one table role each"):
        FamilyRegistry([bad])
    worse = type("Worse", (type(ALL_FAMILIES.get(family.name)),), {"family_id": "worse",
                                                                    "table_roles": ("condition", "condition")})()
    with pytest.raises(Exception, match="at least one 'answer'"):
        FamilyRegistry([worse])


def test_generate_all_pairs_and_asks_the_same_for_any_worker_count(seed_frames, toy_tables):
    from generator_py.questions.instances import COLUMNS, generate_all

    suite = families_for_suites(["beyond"])
    rows = beyond_nl_rows(seed_frames)
    rows = rows[rows["template_id"].astype(int) >= 65]
    base = tables_with_year(toy_tables, "students", 12) + tables_with_year(toy_tables, "pollution", 12)
    tables = [replace_id(t, f"{t.table_id}--{k:02d}") for k in range(5) for t in base]
    tables += [period_partner(t, f"{t.table_id}--later") for t in tables[:len(base) * 4]]  # > 200: the pool path
    one = generate_all(tables, rows, seed_frames["nl_table_meanings"], seed_frames["domain_attributes"], 5,
                       workers=1, families=suite)
    two = generate_all(list(reversed(tables)), rows, seed_frames["nl_table_meanings"],
                       seed_frames["domain_attributes"], 5, workers=2, families=suite)
    assert one.column_names == list(COLUMNS) and one.equals(two)
    read = one.to_pandas()
    pairs = read[read["tables"].map(len) == 2]
    assert len(pairs) > 100 and (pairs["tables"].map(lambda ts: ts[0] != ts[1])).all()


def replace_id(t, table_id):
    from dataclasses import replace

    return replace(t, table_id=table_id)
