"""Question families are registered modules: a toy family registered from test code is drawn, answered,
phrased and given ids like the 15 families of Table III, without any library edit."""
from __future__ import annotations

import pandas as pd
import pytest

from generator_py.questions.instances import COLUMNS, generate_all
from generator_py.questions import (FAMILIES, FamilyRegistry, NLRequirements, NLTemplateError, QuestionFamily,
                                    generate_questions, load_domain_nl, question_id)
from generator_py.questions.families.draws import new_spec

TOY_NL_ID = 101  # the seeds' template_id column of the toy family's phrasings


class ColumnMaximum(QuestionFamily):
    """The largest data value at one column path (up to two questions per table)."""

    family_id = "column_max"
    nl = NLRequirements(TOY_NL_ID, (("EXPRSUP",),), frozenset({"EXPRSUP"}))
    variants = 2

    def draw(self, m, rng, variety):
        path = rng.choice(m.col_paths)
        return new_spec(m.filters_for("col", [path]), [{"kind": "aggregate", "function": "max"}]), {}


TOY_PHRASINGS = ["What is the $EXPRSUP number of accidents of_$Gender_casualties in__$Quarter==of==$Year ?",
                 "Which is the $EXPRSUP accident count recorded for_$Gender_victims in__$Quarter==of==$Year ?"]


@pytest.fixture
def nl_frames(toy_nl_frames):
    """The toy domain's NL seed frames plus the phrasings of the toy family."""
    templates, meanings = toy_nl_frames
    extra = pd.DataFrame([("toy", "*", TOY_NL_ID, p + 1, text) for p, text in enumerate(TOY_PHRASINGS)],
                         columns=templates.columns)
    return pd.concat([templates, extra], ignore_index=True), meanings


@pytest.fixture
def with_toy():
    families = FAMILIES.copy()
    families.register(ColumnMaximum())
    return families


def test_toy_family_questions_have_their_id_answer_and_nl(unbalanced_table, nl_frames, toy_attrs, with_toy):
    t = unbalanced_table
    nl = load_domain_nl(*nl_frames, toy_attrs, "toy", "ref", families=with_toy)
    qs = [q for q in generate_questions(t, nl, 42, with_toy) if q.family == "column_max"]
    assert [q.question_id for q in qs] == [f"{t.table_id}--column_max", f"{t.table_id}--column_max-1"]
    assert [q.family_variant for q in qs] == [0, 1]
    maxima = t.frame.groupby("Year")["Value"].max().to_dict()
    years = set()
    for q in qs:
        (year,) = q.spec["filters"][0]["values"]
        years.add(year)
        assert q.answer_rows == [[maxima[year]]]
        assert q.question in (f"What is the highest number of accidents in {year}?",
                              f"Which is the highest accident count recorded in {year}?")
        assert q.sql == f"SELECT MAX(Value) FROM T WHERE Year = '{year}'"
        assert q.template_id is None and q.metadata["template_id"] is None
        assert q.metadata["aggregations"] == ["max"] and not q.metadata["aggregate_in_table"]
        assert q.properties["aggregation_aggregation_type_max"] and q.properties["aggregation_grouping_global"]
        assert q.kind == "sql" and q.tables == (t.table_id,)
    assert len(years) == 2  # two questions of one family on one table ask different things


def test_families_registered_before_keep_their_draws(unbalanced_table, nl_frames, toy_attrs, toy_nl, with_toy):
    nl = load_domain_nl(*nl_frames, toy_attrs, "toy", "ref", families=with_toy)
    before = [(q.question_id, q.sql, q.question) for q in generate_questions(unbalanced_table, toy_nl, 42)]
    after = [(q.question_id, q.sql, q.question) for q in generate_questions(unbalanced_table, nl, 42, with_toy)]
    assert after[:len(before)] == before
    assert {qid.rsplit("--", 1)[1] for qid, _, _ in before} <= set(FAMILIES.ids())


def test_build_entry_point_runs_the_toy_family(reference_tables, nl_frames, toy_attrs, with_toy):
    table = generate_all(reference_tables, *nl_frames, toy_attrs, 5, workers=1, families=with_toy).to_pylist()
    toy = [r for r in table if r["family"] == "column_max"]
    assert {r["table_id"] for r in toy} == {t.table_id for t in reference_tables}
    for r in toy:
        assert r["question_id"] == question_id(r["table_id"], "column_max", r["family_variant"])
        assert r["template_id"] is None and r["aggregations"] == ["max"]
        # a family outside TReB's map declares no subtask; its values are still reported exactly
        assert (r["treb_skill"], r["treb_subtask"], r["treb_metric"]) == (None, None, "exact_match")
    q01 = [r for r in table if r["family"] == "q01"]
    assert q01 and {(r["treb_skill"], r["treb_subtask"]) for r in q01} == {("TU", "table_retrieval")}
    assert list(table[0]) == list(COLUMNS)


def test_nl_is_demanded_for_the_families_of_the_build(nl_frames, toy_nl_frames, toy_attrs, with_toy):
    with pytest.raises(NLTemplateError, match=r"no template for template_id \[101\]"):
        load_domain_nl(*toy_nl_frames, toy_attrs, "toy", "ref", families=with_toy)
    # the default build has no family reading template_id 101
    with pytest.raises(NLTemplateError, match="template_id 101 is the NL of no question family"):
        load_domain_nl(*nl_frames, toy_attrs, "toy", "ref")
    # a phrasing without the reserved word its family requires
    templates, meanings = nl_frames
    bad = templates.copy()
    bad.loc[bad["template_id"] == TOY_NL_ID, "text"] = "What is the number of accidents in__$Quarter==of==$Year ?"
    with pytest.raises(NLTemplateError, match=r"template 101 needs \$EXPRSUP"):
        load_domain_nl(bad, meanings, toy_attrs, "toy", "ref", families=with_toy)


def test_builtin_families_are_the_fifteen_templates_in_order():
    assert FAMILIES.ids() == tuple(f"q{i:02d}" for i in range(1, 16))
    assert [f.template_id for f in FAMILIES] == list(range(1, 16))
    assert [f.nl.template_id for f in FAMILIES] == list(range(1, 16))
    assert question_id("t--1", "q03", 0) == "t--1--q03" and question_id("t--1", "q03", 2) == "t--1--q03-2"


@pytest.mark.parametrize("change,problem", [
    ({"family_id": "q01"}, "question family 'q01' is registered already (by generator_py.questions.families.lookup)"),
    ({"family_id": "column-max"}, "family_id must be a lower-case word"),
    ({"nl": NLRequirements(0)}, "nl.template_id must be a positive int"),
    ({"nl": NLRequirements(101, (("EXPR",),), frozenset())}, "required reserved words ['EXPR'] are not allowed"),
    ({"nl": NLRequirements(101, (), frozenset({"BOGUS"}))}, "unknown reserved words ['BOGUS']"),
    ({"variants": 0}, "variants must be an int >= 1"),
    ({"treb_skill": "TU", "treb_subtask": "tabel_retrieval"},
     "question family 'column_max': treb_subtask of skill TU must be one of table_retrieval"),
    ({"treb_skill": "XX", "treb_subtask": "table_query"}, "treb_skill must be one of NLU, TU, TBO"),
    ({"treb_subtask": "table_query"}, "treb_skill must be one of"),
    ({"treb_metric": "exact match"}, "treb_metric must name a metric, got 'exact match'"),
])
def test_registration_errors_name_the_family_and_problem(change, problem):
    family = type("Toy", (ColumnMaximum,), {})()
    for k, v in change.items():
        setattr(family, k, v)
    registry = FAMILIES.copy()
    with pytest.raises(ValueError) as e:
        registry.register(family)
    assert problem.replace("ColumnMaximum", "Toy") in str(e.value)
    assert len(registry) == 15


def test_unknown_family_lookup_names_the_registered_ones():
    with pytest.raises(LookupError, match="unknown question family 'nope' \\(registered: q01, q02"):
        FamilyRegistry(FAMILIES).get("nope")
    with pytest.raises(LookupError, match="unknown question family 'q1'; did you mean q"):
        FamilyRegistry(FAMILIES).get("q1")
