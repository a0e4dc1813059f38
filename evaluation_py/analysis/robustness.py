"""Consistency across perturbed views (TReB's robustness subtask, `analysis_robustness_consistency`): whether a
model gives the same answer to one question asked on its table and on perturbed views of it.

Consistency is a measure over a group of questions, not of one prediction, so it is an analysis, not a metric:
each group is the questions of one table and one family declaring `perturbed_views` (their views: `view_name`);
the metrics registry scores predictions one by one, and exact match (the subtask's metric in
analysis_scores_by_treb_skill) stays the accuracy beside it.

A prediction's normalised answer is its answer as strict mode reads it (evaluation_py.scoring.strict_reading):
the set of its values, numbers by value (`12.50` and `12.5` alike), texts lower-cased, a refusal one value of its
own, an unanswered prediction another. Per model x inference mode x table format x view (each perturbation, and
`all`): over the groups where the model answered the original and that view, the share whose two normalised
answers are equal (`all`: the groups with two views or more answered, every answer equal), with a 95 % interval
from a bootstrap resampling tables (one group per table), and the strict exact match on the originals and on the
views of those groups.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from generator_py.questions.families import ALL_FAMILIES
from generator_py.core.registry import UnknownNameError

from ..scoring.scores import request_answers
from ..scoring.strict_reading import read_response
from .leaderboard import N_BOOT, _generator, cluster_interval

ORIGINAL, ALL = "original", "all"
QUESTION_COLUMNS = ("question_id", "table_id", "family", "spec_json")
KEYS = ["model_name", "inference_mode", "table_format", "view"]
COLUMNS = [*KEYS, "consistency", "ci_low", "ci_high", "accuracy_original", "accuracy_view", "n_groups", "n_tables"]
_INTS = ("n_groups", "n_tables")
_FLOATS = ("consistency", "ci_low", "ci_high", "accuracy_original", "accuracy_view")


def normalised_answer(answer) -> tuple:
    """An answer as strict mode reads it, in a form that compares equal for the same reading."""
    reading = read_response(answer)
    if reading.refused:
        return ("<refused>",)
    if reading.unanswered:
        return ("<unanswered>",)
    return tuple(sorted({("n", str(x.normalize())) if x is not None else ("t", texts[0])
                         for texts, x in reading.values}))


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="int64" if c in _INTS else "float64" if c in _FLOATS else "string")
                         for c in COLUMNS})


def view_groups(questions: pd.DataFrame) -> pd.DataFrame:
    """question_id -> its group (table_id, family) and view, for the questions of `perturbed_views` families."""
    rows = []
    for qid, table_id, family, spec in zip(*(questions[c].tolist() for c in QUESTION_COLUMNS)):
        try:
            fam = ALL_FAMILIES.get(family) if isinstance(family, str) else None
        except UnknownNameError:
            fam = None
        if fam is None or not getattr(fam, "perturbed_views", False):
            continue
        rows.append((qid, f"{table_id}--{family}", table_id, fam.view_name(json.loads(spec))))
    return pd.DataFrame(rows, columns=["question_id", "group", "group_table", "view"])


def robustness_consistency(requests: pd.DataFrame, predictions: pd.DataFrame, scores: pd.DataFrame,
                           questions: pd.DataFrame, seed: int, n_boot: int = N_BOOT) -> pd.DataFrame:
    """`analysis_robustness_consistency` from eval_requests, eval_predictions, eval_scores (long) and
    benchmark_questions rows (the module docstring)."""
    missing = [c for c in QUESTION_COLUMNS if c not in questions.columns]
    if missing:
        raise ValueError(f"benchmark_questions rows lack column(s) {', '.join(missing)}")
    if "variant" in questions.columns:
        questions = questions[questions["variant"].fillna("original") == "original"]
    groups = view_groups(questions)
    if groups.empty or requests.empty:
        return _empty()
    asked = requests[requests["question_id"].isin(set(groups["question_id"]))]
    if "turn" in asked.columns:
        asked = asked[asked["turn"].fillna(0) == 0]
    answered = request_answers(asked, predictions).merge(groups, on="question_id")
    answered = answered[answered["response"].notna()]
    exact = scores[(scores["metric"] == "exact_match") & (scores["scoring_mode"] == "strict")]
    answered = answered.merge(exact[["cache_key", "value"]], on="cache_key", how="left")
    answered["norm"] = answered["answer"].map(normalised_answer)
    rows = []
    for (model, mode, fmt), g in answered.groupby(["model_name", "inference_mode", "table_format"], sort=True):
        by_group: dict[str, dict] = {}  # group -> view -> (normalised answer, exact match); plain dicts: fast
        table_of: dict[str, str] = {}
        for group, table, view, norm, value in zip(g["group"], g["group_table"], g["view"], g["norm"], g["value"]):
            by_group.setdefault(group, {})[view] = (norm, float(value))
            table_of[group] = table
        views = sorted({v for v in g["view"] if v != ORIGINAL})
        for view in views + [ALL]:
            agree, tables, acc_orig, acc_view = [], [], [], []
            for group, answers in sorted(by_group.items()):
                original = answers.get(ORIGINAL)
                if view == ALL:
                    if len(answers) < 2:
                        continue
                    agree.append(float(len({norm for norm, _ in answers.values()}) == 1))
                    acc_view.extend(x for v, (_, x) in answers.items() if v != ORIGINAL)
                elif original is not None and view in answers:
                    agree.append(float(original[0] == answers[view][0]))
                    acc_view.append(answers[view][1])
                else:
                    continue
                if original is not None:
                    acc_orig.append(original[1])
                tables.append(table_of[group])
            if not agree:
                continue
            mean, low, high = cluster_interval(np.asarray(agree), np.asarray(tables), n_boot,
                                               _generator(seed, model, mode, fmt, view))
            rows.append((model, mode, fmt, view, mean, low, high,
                         float(np.nanmean(acc_orig)) if acc_orig else np.nan,
                         float(np.nanmean(acc_view)) if acc_view else np.nan, len(agree), len(set(tables))))
    if not rows:
        return _empty()
    out = pd.DataFrame(rows, columns=COLUMNS)
    for c in _INTS:
        out[c] = out[c].astype("int64")
    return out
