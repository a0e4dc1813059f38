"""Question diversity: the paper's Table I syntactic-similarity statistic."""
from __future__ import annotations

import re
from itertools import combinations

_WORD = re.compile(r"[a-z0-9]+(?:[.'-][a-z0-9]+)*")


def _words(text: str) -> frozenset:
    return frozenset(_WORD.findall(str(text).lower()))


def jaccard(a: frozenset, b: frozenset) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def question_diversity(questions_df) -> float:
    """Mean over tables with >1 question of the mean pairwise word-level Jaccard similarity of their questions.

    `questions_df` needs columns `table_id` and `question`. Lower means more diverse; NaN if no table
    has two questions.
    """
    per_table = []
    for _, g in questions_df.groupby("table_id", sort=False):
        ws = [_words(q) for q in g["question"]]
        if len(ws) < 2:
            continue
        sims = [jaccard(a, b) for a, b in combinations(ws, 2)]
        per_table.append(sum(sims) / len(sims))
    return sum(per_table) / len(per_table) if per_table else float("nan")
