import math

import pandas as pd

from generator_py.questions import generate_questions, load_domain_nl, question_diversity


def test_diversity_function():
    df = pd.DataFrame({"table_id": ["a", "a", "b", "b", "c"],
                       "question": ["x y", "x y", "p q", "r s", "single"]})
    assert question_diversity(df) == 0.5
    assert math.isnan(question_diversity(df[df.table_id == "c"]))


def test_generated_benchmark_is_diverse(seed_frames, toy_tables):
    fr = seed_frames
    rows = []
    for dom, tn in toy_tables.domains():
        nl = load_domain_nl(fr["nl_templates"], fr["nl_table_meanings"], fr["domain_attributes"], dom, tn)
        for i in range(5):
            t = toy_tables.table(dom, i, seed=2)
            rows += [(q.table_id, q.question) for q in generate_questions(t, nl, 9)]
    assert question_diversity(pd.DataFrame(rows, columns=["table_id", "question"])) <= 0.35
