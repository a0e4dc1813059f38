"""Question diversity: the paper's Table I statistics (questions per table, syntactic similarity)."""
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


DIVERSITY_COLUMNS = ("level", "source", "template_id", "n_tables", "n_questions", "questions_per_table",
                     "n_tables_compared", "syntactic_similarity")


def _mean_pairwise(ws: list) -> float:
    sims = [jaccard(a, b) for a, b in combinations(ws, 2)]
    return sum(sims) / len(sims)


def diversity_table(questions_df):
    """Table I's two statistics of a benchmark's questions, overall, per source and per source x template.

    `questions_df` needs `table_id`, `source`, `template_id` (NULL where a question has none) and
    `question`. One row per group (`DIVERSITY_COLUMNS`): `level` `all` (every question; source and template
    NULL), `source` (template NULL) or `template` (the questions of one template, those with one); the
    tables and questions of the group, questions per table, the tables with two or more of the group's
    questions and :func:`question_diversity` over them (NULL when there are none). Each question's
    words are read once; each table's similarity is computed once for the all and source levels."""
    import pandas as pd

    words = [_words(q) for q in questions_df["question"]]
    tables = questions_df["table_id"].astype(str).tolist()
    sources = questions_df["source"].tolist()
    templates = pd.array(questions_df["template_id"], dtype="Int64")
    by_table: dict = {}
    source_of: dict = {}
    by_template: dict = {}
    for w, t, s, k in zip(words, tables, sources, templates):
        by_table.setdefault(t, []).append(w)
        source_of[t] = s
        if k is not pd.NA:
            by_template.setdefault((s, int(k)), {}).setdefault(t, []).append(w)
    table_sim = {t: _mean_pairwise(ws) for t, ws in by_table.items() if len(ws) > 1}

    def row(level, source, template, groups: dict, sims: dict):
        n_q = sum(len(ws) for ws in groups.values())
        values = list(sims.values())
        return {"level": level, "source": source, "template_id": template, "n_tables": len(groups),
                "n_questions": n_q, "questions_per_table": n_q / len(groups) if groups else float("nan"),
                "n_tables_compared": len(values),
                "syntactic_similarity": sum(values) / len(values) if values else float("nan")}

    rows = [row("all", None, None, by_table, table_sim)] if by_table else []
    for s in sorted({str(x) for x in source_of.values()}):
        mine = {t: ws for t, ws in by_table.items() if str(source_of[t]) == s}
        rows.append(row("source", s, None, mine, {t: table_sim[t] for t in mine if t in table_sim}))
    for (s, k) in sorted(by_template, key=lambda sk: (str(sk[0]), sk[1])):
        groups = by_template[(s, k)]
        rows.append(row("template", s, k, groups,
                        {t: _mean_pairwise(ws) for t, ws in groups.items() if len(ws) > 1}))
    out = pd.DataFrame(rows, columns=list(DIVERSITY_COLUMNS))
    out["template_id"] = out["template_id"].astype("Int64")
    for c in ("n_tables", "n_questions", "n_tables_compared"):
        out[c] = out[c].astype("int64")
    for c in ("questions_per_table", "syntactic_similarity"):
        out[c] = out[c].astype("float64")
    return out
