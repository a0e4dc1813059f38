"""One-shot prompts (entry key `shots: 1`): before the question, one worked example, another table's
question of the same kind with its answer, as a user turn and the assistant's reply.

The same kind: the same SQL template (`template_id`, the synthetic questions), else the same question
family (`family`), else the same source (the real questions, which have neither), and the same variant.
The example is never on the question's table. The choice is deterministic: every question of a kind has
a seeded rank (from the seed and its id alone), and a question's example is the first-ranked question of
its kind on another table, so it depends on neither the model nor the sample.
"""
from __future__ import annotations

import pandas as pd

from generator_py.core.rng import stable_int

SHOTS = (0, 1)
KIND_COLUMNS = ("template_id", "family", "source")


def kind_of(questions: pd.DataFrame) -> list[tuple]:
    """Each question's kind: (variant, the first of template_id / family / source it has)."""
    variant = questions["variant"].tolist() if "variant" in questions.columns else [None] * len(questions)
    columns = [(c, questions[c].tolist()) for c in KIND_COLUMNS if c in questions.columns]
    out = []
    for i, v in enumerate(variant):
        kind = next(((c, values[i]) for c, values in columns if values[i] is not None and not pd.isna(values[i])),
                    None)
        out.append((v, kind))
    return out


def _ranked(pool: pd.DataFrame, seed: int) -> dict[tuple, list[tuple[int, str, str]]]:
    """kind -> its questions (rank, question_id, table_id), first-ranked first."""
    ranked: dict[tuple, list[tuple[int, str, str]]] = {}
    for kind, qid, table in zip(kind_of(pool), pool["question_id"].tolist(), pool["table_id"].tolist()):
        ranked.setdefault(kind, []).append((stable_int(seed, "one-shot", qid), qid, table))
    for candidates in ranked.values():
        candidates.sort()
    return ranked


def one_shot_examples(chosen: pd.DataFrame, pool: pd.DataFrame, seed: int) -> dict[str, str]:
    """question_id -> the question_id of its example (from `pool`, usually every question of the benchmark);
    a question whose kind has no question on another table has none (it is then asked without one)."""
    ranked = _ranked(pool, seed)
    out = {}
    for kind, qid, table in zip(kind_of(chosen), chosen["question_id"].tolist(), chosen["table_id"].tolist()):
        # the first-ranked candidate on another table (the first two suffice unless a table repeats)
        for _, example, example_table in ranked.get(kind, ()):
            if example_table != table:
                out[qid] = example
                break
    return out


def example_candidates(pool: pd.DataFrame, seed: int) -> dict[str, str]:
    """The questions of `pool` that can be an example (question_id -> table_id): of each kind, the first-ranked
    ones up to the first on a second table. A pool cut to these (and any others) gives every question the example
    the whole pool gives: its example is the first-ranked on another table, the first or the first on a second."""
    out = {}
    for candidates in _ranked(pool, seed).values():
        first_table = candidates[0][2]
        for _, qid, table in candidates:
            out[qid] = table
            if table != first_table:
                break
    return out


def with_example(messages: tuple[dict, ...], example_messages: tuple[dict, ...], example_answer: str
                 ) -> tuple[dict, ...]:
    """The question's zero-shot messages with the example's turn and its answer put before the question:
    (system,) example user, assistant answer, question user."""
    return (*example_messages, {"role": "assistant", "content": example_answer}, messages[-1])
