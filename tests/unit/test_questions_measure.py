"""Question generation obeys the measure: admitted aggregations only, no sum or average across the values
of a non-additive attribute, and the SQL15 wording when a group qualifies through one member."""
from __future__ import annotations

import pytest

from generator_py.questions import Measure, generate_questions, load_domain_nl


@pytest.fixture
def questions(seed_frames, toy_tables):
    """questions(domain, measure, n): (table, its questions) for n toy tables of the domain."""
    def questions(domain: str, measure: Measure, n: int = 30):
        fr = seed_frames
        tn = fr["table_templates"].set_index("domain").loc[domain, "template_name"]
        nl = load_domain_nl(fr["nl_templates"], fr["nl_table_meanings"], fr["domain_attributes"], domain, tn)
        for i in range(n):
            t = toy_tables.table(domain, i, seed=3)
            yield t, generate_questions(t, nl, 7, measure=measure)
    return questions


def test_only_admitted_aggregations(questions):
    drawn = set()
    for t, qs in questions("weather", Measure(("avg", "min", "max"))):
        for q in qs:
            if q.template_id != 5:
                drawn |= set(q.metadata["aggregations"])
    assert drawn == {"avg", "min", "max"}
    everything = {f for _, qs in questions("weather", Measure()) for q in qs for f in q.metadata["aggregations"]}
    assert "sum" in everything  # without the measure the same tables do get sums


def test_no_sum_or_average_across_a_non_additive_attribute(questions):
    measure = Measure(non_additive=frozenset({"Trade_Direction"}))
    checked = 0
    for t, qs in questions("food_import_export", measure):
        if "Trade_Direction" not in {a.name for a in t.attributes}:
            continue
        for q in qs:
            if q.template_id == 5 or not {"sum", "avg"} & set(q.metadata["aggregations"]):
                continue
            values = [f["values"] for f in q.spec["filters"] if f["attribute"] == "Trade_Direction"]
            assert "Trade_Direction" in q.spec["group_by"] or (values and len(values[0]) == 1), q.question
            checked += 1
    assert checked > 5


def test_answers_have_one_width(questions):
    for _, qs in questions("accidents", Measure(), n=20):
        for q in qs:
            assert all(v is not None for row in q.answer_rows for v in row), q.question
