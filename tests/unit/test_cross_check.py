import pandas as pd

from generator_py.answers.sqlite_answers import compare_answers, sqlite_answers
from generator_py.questions import generate_questions


def test_sqlite_agrees_with_generated_answers(reference_tables, toy_nl):
    nl = toy_nl
    tabs, qs = {}, []
    for t in reference_tables:
        tabs[t.table_id] = t.frame
        qs += generate_questions(t, nl, 5)
    triples = [(q.question_id, q.table_id, q.sql) for q in qs]
    for workers in (1, 2):
        ans = sqlite_answers(tabs, triples, workers=workers)
        assert set(ans) == {q.question_id for q in qs}
        for q in qs:
            assert compare_answers(q.answer_rows, ans[q.question_id], bool(q.spec["order_by"])), q.sql


def test_compare_answers():
    assert compare_answers([["a", 1.0]], [["a", 1]], True)
    assert compare_answers([[1.004], [2]], [[2.0], [1.0]], False)
    assert not compare_answers([[1], [2]], [[2], [1]], True)
    assert not compare_answers([[1.5]], [[1.51]], False)


def test_null_order_survives_transpile():
    frame = pd.DataFrame({"A": ["b", None, "a"], "Value": [1.0, 2.0, 3.0]})
    ans = sqlite_answers({"t": frame}, [("q", "t", "SELECT A, SUM(Value) FROM T GROUP BY A ORDER BY A ASC")])
    assert ans["q"] == [["a", 3.0], ["b", 1.0], [None, 2.0]]
