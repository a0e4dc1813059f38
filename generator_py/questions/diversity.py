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


def _pair_similarities(word_sets: list) -> list[list[float]]:
    """The symmetric matrix of pairwise Jaccard similarities (0 on the diagonal), each pair computed once:
    the sets as bit masks over the table's own words, so a pair costs two integer operations."""
    ids: dict = {}
    masks = []
    for ws in word_sets:
        m = 0
        for w in ws:
            m |= 1 << ids.setdefault(w, len(ids))
        masks.append(m)
    sizes = [len(ws) for ws in word_sets]
    n = len(masks)
    sim = [[0.0] * n for _ in range(n)]
    for i in range(n):
        mi, si, row = masks[i], sizes[i], sim[i]
        for j in range(i + 1, n):
            inter = (mi & masks[j]).bit_count()
            union = si + sizes[j] - inter
            row[j] = sim[j][i] = inter / union if union else 1.0
    return sim


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


def diversity_table(questions_df):
    """Table I's two statistics of a benchmark's questions, overall, per source and per source x template.

    `questions_df` needs `table_id`, `source`, `template_id` (NULL where a question has none) and `question`.
    One row per group (`DIVERSITY_COLUMNS`): `level` `all` (every question; source and template NULL),
    `source` (template NULL) or `template`; the tables and questions of the group, questions per table, the
    tables compared and the mean similarity over them (NULL when none is). At the all and source levels this
    is :func:`question_diversity`: per table with two or more questions, the mean pairwise word-level
    Jaccard similarity of its questions. A template has one question per table, so at the template level a
    table's figure is the mean over the pairs of its questions that hold one of the template's (how close
    the template's questions come to the others on their table), over the tables with such a pair. Each
    pair of a table is compared once for all three levels. The tables are taken in the order of their first
    question, each with its questions in the frame's order: see :func:`diversity_of_tables`."""
    import pandas as pd

    by_table: dict = {}
    for t, s, k, q in zip(questions_df["table_id"].astype(str).tolist(), questions_df["source"].tolist(),
                          pd.array(questions_df["template_id"], dtype="Int64"), questions_df["question"].tolist()):
        entry = by_table.setdefault(t, [None, []])
        entry[0] = s  # a table's source: that of its last question
        entry[1].append((None if k is pd.NA else int(k), q))
    return diversity_of_tables((t, s, questions) for t, (s, questions) in by_table.items())


def diversity_of_tables(tables):
    """:func:`diversity_table` of the questions given a table at a time: `(table_id, source, [(template_id or
    None, question), ...])` for each table, once. Only the table at hand has its word sets in memory, so the
    questions of a 10x build can be streamed through (analysis_question_diversity). A table given twice is an
    error: its pairs with its earlier questions would be missed."""
    import pandas as pd

    sources: dict = {}  # table -> its source, in the order given
    sizes: dict = {}  # table -> its questions
    table_sim: dict = {}  # table -> mean over its pairs
    template_sim: dict = {}  # (source, template) -> {table: mean over the pairs holding the template}
    template_tables: dict = {}  # (source, template) -> {table: the template's questions there}
    for t, source, questions in tables:
        if t in sources:
            raise ValueError(f"question diversity: table {t!r} is given twice; give each table's questions together")
        src = str(source)
        sources[t], sizes[t] = src, len(questions)
        members: dict = {}  # template -> positions of its questions on the table
        for i, (k, _) in enumerate(questions):
            if k is not None:
                members.setdefault(k, []).append(i)
        for k, positions in members.items():
            template_tables.setdefault((src, k), {})[t] = len(positions)
        n = len(questions)
        if n < 2:
            continue
        sim = _pair_similarities([_words(q) for _, q in questions])
        row_sums = [sum(r) for r in sim]
        table_sim[t] = sum(row_sums) / (n * (n - 1))  # each pair is in two rows
        for k, positions in members.items():
            if len(positions) == 1:  # the usual case: the pairs of one question
                value = row_sums[positions[0]] / (n - 1)
            else:
                held = [(i, j) for i in range(n) for j in range(i + 1, n) if i in positions or j in positions]
                value = sum(sim[i][j] for i, j in held) / len(held)
            template_sim.setdefault((src, k), {})[t] = value

    def row(level, source, template, n_tables, n_questions, sims):
        values = list(sims)
        return {"level": level, "source": source, "template_id": template, "n_tables": n_tables,
                "n_questions": n_questions, "questions_per_table": n_questions / n_tables,
                "n_tables_compared": len(values),
                "syntactic_similarity": sum(values) / len(values) if values else float("nan")}

    rows = []
    if sources:
        rows.append(row("all", None, None, len(sources), sum(sizes.values()), table_sim.values()))
    for src in sorted(set(sources.values())):
        mine = [t for t in sources if sources[t] == src]
        rows.append(row("source", src, None, len(mine), sum(sizes[t] for t in mine),
                        [table_sim[t] for t in mine if t in table_sim]))
    for src, k in sorted(template_tables):
        counts = template_tables[(src, k)]
        rows.append(row("template", src, k, len(counts), sum(counts.values()),
                        template_sim.get((src, k), {}).values()))
    out = pd.DataFrame(rows, columns=list(DIVERSITY_COLUMNS))
    out["template_id"] = out["template_id"].astype("Int64")
    for c in ("n_tables", "n_questions", "n_tables_compared"):
        out[c] = out[c].astype("int64")
    for c in ("questions_per_table", "syntactic_similarity"):
        out[c] = out[c].astype("float64")
    return out


def questions_by_table(parts):
    """`(table_id, source, [(template_id, question), ...])` of each table, for :func:`diversity_of_tables`, from
    Arrow tables of questions (columns `table_id`, `source`, `template_id`, `question`) that hold each table's
    questions together and whole, as `whole_groups` cuts them; a table's source is that of its last question."""
    for part in parts:
        columns = part.select(["table_id", "source", "template_id", "question"]).to_pydict()
        ids, sources, templates, texts = (columns[c] for c in ("table_id", "source", "template_id", "question"))
        start = 0
        for end in range(1, len(ids) + 1):
            if end == len(ids) or ids[end] != ids[start]:
                yield str(ids[start]), sources[end - 1], list(zip(templates[start:end], texts[start:end]))
                start = end
