"""How questions were made (creation_type, Figure 8's breakdown) and how diverse they are (Table I's statistics),
on planted data."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from evaluation_py.analysis import scores_by_creation_type
from generator_py.questions.diversity import (DIVERSITY_COLUMNS, diversity_of_tables, diversity_table, question_diversity,
                                             questions_by_table)
from generator_py.release.real_import import creation_type, load_release


@pytest.mark.parametrize("question_id, expected", [
    ("psa--1--102--A0", "model_generated"),
    ("arxiv--7--3--A12", "model_generated"),
    ("psa--1--102--M3", "manual"),
    ("pak--2--1--M", "manual"),
    ("psa--9--1--q1", None),       # marked neither
    ("psa--9--1--a0", None),       # the mark is a capital letter
    ("M0", None),                  # no segment to read
])
def test_creation_type_reads_the_last_segment(question_id, expected):
    assert creation_type(question_id) == expected


def test_the_release_sample_marks_every_question(real_sample_dir):
    _, questions = load_release(real_sample_dir)
    kinds = questions["creation_type"].value_counts(dropna=False).to_dict()
    assert set(kinds) == {"manual", "model_generated"} and sum(kinds.values()) == 194
    last = questions["question_id"].str.rsplit("--", n=1).str[1].str[0]
    assert (questions["creation_type"] == last.map({"M": "manual", "A": "model_generated"})).all()


def _scores() -> pd.DataFrame:
    rows = []
    # model m1: manual question 1.0, model-generated 0.5 and 0.0, synthetic 0.25; m2 only the synthetic one
    for model, qid, value in (("m1", "r--1--M0", 1.0), ("m1", "r--1--A0", 0.5), ("m1", "r--1--A1", 0.0),
                              ("m1", "syn--d--q01", 0.25), ("m2", "syn--d--q01", 0.75), ("m1", "r--1--x", 0.1)):
        for mode in ("strict", "paper"):
            rows.append({"model_name": model, "inference_mode": "direct", "scoring_mode": mode,
                         "table_format": "html", "question_id": qid, "metric": "f1", "value": value,
                         "left_out": mode == "paper" and qid == "r--1--A1"})
    return pd.DataFrame(rows)


QUESTIONS = pd.DataFrame({"question_id": ["r--1--M0", "r--1--A0", "r--1--A1", "syn--d--q01", "r--1--x"],
                          "creation_type": ["manual", "model_generated", "model_generated", "synthetic", None]})


def test_scores_by_creation_type_averages_each_kind_per_model():
    out = scores_by_creation_type(_scores(), QUESTIONS)
    got = {(r.model_name, r.scoring_mode, r.creation_type if isinstance(r.creation_type, str) else None):
           (r.value, r.n, r.n_left_out) for r in out.itertuples()}
    assert got[("m1", "strict", "manual")] == (1.0, 1, 0)
    assert got[("m1", "strict", "model_generated")] == (0.25, 2, 0)
    assert got[("m1", "paper", "model_generated")] == (0.5, 1, 1)  # the left-out one counted apart
    assert got[("m1", "strict", "synthetic")] == (0.25, 1, 0)
    assert got[("m2", "strict", "synthetic")] == (0.75, 1, 0)
    assert got[("m1", "strict", None)] == (0.1, 1, 0)  # a real question marked neither: a group of its own
    assert ("m2", "strict", "manual") not in got
    assert len(out) == 2 * 5


def test_scores_by_creation_type_without_the_column_is_empty():
    out = scores_by_creation_type(_scores(), QUESTIONS[["question_id"]])
    assert out.empty and "creation_type" in out.columns


def test_diversity_table_per_source_and_template():
    questions = pd.DataFrame([
        # table t1 (synthetic): template 1 twice, template 2 once
        ("t1", "synthetic", 1, "how many cars"),        # {how, many, cars}
        ("t1", "synthetic", 1, "how many red cars"),    # {how, many, red, cars}: jaccard 3/4 with the first
        ("t1", "synthetic", 2, "total of cars"),        # 1/5 with the first, 1/6 with the second
        # table t2 (synthetic): one question
        ("t2", "synthetic", 2, "total of trucks"),
        # table r1 (real): two questions, no template
        ("r1", "real", None, "a b"),
        ("r1", "real", None, "a c"),                    # 1/3
    ], columns=["table_id", "source", "template_id", "question"])
    out = diversity_table(questions)
    assert list(out.columns) == list(DIVERSITY_COLUMNS)
    rows = {(r.level, r.source if isinstance(r.source, str) else None,
             None if pd.isna(r.template_id) else int(r.template_id)): r for r in out.itertuples()}
    assert list(rows) == [("all", None, None), ("source", "real", None), ("source", "synthetic", None),
                          ("template", "synthetic", 1), ("template", "synthetic", 2)]
    t1 = (3 / 4 + 1 / 5 + 1 / 6) / 3
    synthetic = rows[("source", "synthetic", None)]
    assert (synthetic.n_tables, synthetic.n_questions, synthetic.n_tables_compared) == (2, 4, 1)
    assert synthetic.questions_per_table == 2.0 and synthetic.syntactic_similarity == pytest.approx(t1)
    overall = rows[("all", None, None)]
    assert (overall.n_tables, overall.n_questions, overall.n_tables_compared) == (3, 6, 2)
    assert overall.syntactic_similarity == pytest.approx((t1 + 1 / 3) / 2)
    # the overall figure is the existing statistic over every question
    assert overall.syntactic_similarity == pytest.approx(question_diversity(questions))
    # a template's figure: per table, the mean over the pairs holding one of its questions
    one = rows[("template", "synthetic", 1)]  # every pair of t1 holds a template-1 question
    assert (one.n_tables, one.n_questions, one.n_tables_compared) == (1, 2, 1)
    assert one.syntactic_similarity == pytest.approx(t1)
    two = rows[("template", "synthetic", 2)]  # on t1 the pairs of "total of cars"; t2 has no pair
    assert (two.n_tables, two.n_questions, two.n_tables_compared) == (2, 2, 1)
    assert two.questions_per_table == 1.0 and two.syntactic_similarity == pytest.approx((1 / 5 + 1 / 6) / 2)
    assert rows[("source", "real", None)].syntactic_similarity == pytest.approx(1 / 3)


def test_diversity_table_without_pairs_has_no_similarity():
    questions = pd.DataFrame([("t1", "synthetic", 1, "how many cars"), ("t2", "synthetic", 1, "how many trucks")],
                             columns=["table_id", "source", "template_id", "question"])
    for r in diversity_table(questions).itertuples():
        assert (r.n_tables, r.n_questions, r.n_tables_compared) == (2, 2, 0) and math.isnan(r.syntactic_similarity)


def test_diversity_streamed_a_table_at_a_time_equals_the_frames():
    """What analysis_question_diversity streams from DuckDB: Arrow parts of whole tables, each table's questions
    together, in the order of their first question; a frame may hold a table's questions apart."""
    import duckdb
    from generator_py.dbt_glue.relations import whole_groups

    rows = [("t2", "synthetic", 2, "total of trucks"), ("t1", "synthetic", 1, "how many cars"),
            ("r1", "real", None, "a b"), ("t1", "synthetic", 1, "how many red cars"), ("r1", "real", None, "a c"),
            ("t1", "synthetic", 2, "total of cars"), ("t3", "synthetic", 3, "which truck is red")]
    frame = pd.DataFrame(rows, columns=["table_id", "source", "template_id", "question"])
    con = duckdb.connect()
    con.register("q", frame.assign(question_id=[f"{i:02d}" for i in range(len(rows))]))
    streamed = (con.table("q").project("table_id, source, template_id, question, question_id, "
                                       "min(question_id) over (partition by table_id) as first_question_id")
                .order("first_question_id, question_id"))
    parts = list(whole_groups(streamed, "table_id", rows=2))
    assert len(parts) > 1  # tables cut by a batch boundary are joined whole
    assert [t for t, _, _ in questions_by_table(parts)] == ["t2", "t1", "r1", "t3"]
    pd.testing.assert_frame_equal(diversity_of_tables(questions_by_table(parts)), diversity_table(frame),
                                  check_exact=True)


def test_diversity_of_a_table_given_twice_is_an_error_naming_it():
    with pytest.raises(ValueError, match="table 't1' is given twice"):
        diversity_of_tables([("t1", "synthetic", [(1, "a b")]), ("t2", "synthetic", [(1, "a c")]),
                             ("t1", "synthetic", [(2, "b c")])])


def test_diversity_table_of_no_questions_is_empty():
    out = diversity_table(pd.DataFrame(columns=["table_id", "source", "template_id", "question"]))
    assert out.empty and list(out.columns) == list(DIVERSITY_COLUMNS)
