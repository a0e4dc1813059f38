"""HCT-QA scoring: extraction, a scoring mode's reading, the registered metrics, and their means.

A response is scored in three steps:

1. extraction (:mod:`evaluation_py.scoring.extraction`): the filter of the request's inference mode
   takes the answer out of the raw response (``direct``: the response as it came);
2. a scoring mode reads the answer and the ground truth and matches their values
   (a :class:`evaluation_py.scoring.metrics.Match`);
3. every registered metric (:mod:`evaluation_py.scoring.metrics`: ``precision``, ``recall``, ``f1``,
   ``cc`` and any other registered one) is a function of the match.

The scoring modes differ in how a response is read and in what enters the means:

* ``strict`` (the default everywhere): the response is read as a fair reader would
  (:mod:`evaluation_py.scoring.strict_reading`: final-answer markers, the ground truth's own format,
  lists, numbers compared within half a unit of the ground truth's last decimal place).
  Every prediction enters the means; an unanswered one (missing, empty, a refusal, an error)
  scores 0 and is counted in ``unanswered``.
* ``paper``: the HCT-QA release's own procedure, bit for bit (:mod:`evaluation_py.scoring.paper_reading`):
  exact text matching after its cleaning, and missing / ``no answer`` / ``error`` responses
  left out of the means (counted in ``left_out``). This reproduces the release's numbers.

* ``paper-hitab`` and ``paper-gpt``: the release's variants of ``paper`` for some of its datasets
  (:mod:`evaluation_py.scoring.scoring_modes`): the paper reading, then ``paper-hitab`` removes every ``%``
  from the response's values and applies its number rule to a one-value response and gt
  (:func:`~evaluation_py.scoring.paper_reading.hitab_values`), ``paper-gpt`` splits a ``label: number``
  value in two (:func:`~evaluation_py.scoring.paper_reading.gpt_values`). Files are scored with them on
  request; a build scores ``strict`` and ``paper`` (``BUILD_SCORING_MODES``).

Every mode compares *sets* of values. ``unanswered`` is one flag per prediction whatever the
mode (strict's reading), so that both modes report the same count; in ``paper`` mode the
left-out predictions are among them.

Scores come as lists, line by line (:mod:`evaluation_py.scoring.line_scores`: :func:`score_lists`, what the
CLI scores a file with, in plain Python), wide (:func:`score_frame`: a column per metric, for one scoring
mode) or long (:func:`to_long`, :func:`scores_table`: one row per prediction, scoring mode and metric, with
``metric`` and ``value``: what ``eval_scores`` holds). Long scores are averaged by :func:`mean_scores` (the
breakdowns and the report; ``eval_summary`` is its SQL twin), the lines of one scoring by
:func:`~evaluation_py.scoring.line_scores.line_means` (the CLI, :func:`summarize`). No dbt imports.
"""
from __future__ import annotations

from typing import Iterable

import pandas as pd

from generator_py.core.child_process import map_in_child_processes
from generator_py.release.gt import gt_values

from . import extraction, metrics
from .line_scores import (FLAG_COLUMNS, PAPER_METRICS, checked_metric_names, dataset_of,  # re-exported
                          default_metrics, line_means, paper_match, score_lists, score_one)
from ..modes.outcomes import answers_for_scoring
from .paper_reading import clean_response, response_values
from .scoring_modes import (BUILD_SCORING_MODES, DEFAULT_SCORING_MODE, SCORING_MODE_READINGS,  # re-exported
                            SCORING_MODES)

def score_frame(df: pd.DataFrame, response_col: str = "response", gt_col: str = "gt",
                scoring_mode: str = DEFAULT_SCORING_MODE, readings: dict | None = None,
                inference_mode: str = extraction.DEFAULT_INFERENCE_MODE,
                metric_names: Iterable[str] | None = None, instruction_col: str | None = None) -> pd.DataFrame:
    """A copy of ``df`` with a column per metric of ``metric_names`` (default: every scored one) and
    ``left_out``, ``unanswered`` added, for one scoring mode; the responses are read through the extraction
    filter of ``inference_mode`` (``readings``: see :func:`score_lists`)."""
    for col in (response_col, gt_col):
        if col not in df.columns:
            raise KeyError(f"column {col!r} not in frame (columns: {list(df.columns)})")
    answers = extraction.extract(df[response_col].tolist(), inference_mode)
    given = df[instruction_col].tolist() if instruction_col is not None and instruction_col in df.columns else None
    scores = score_lists(answers, df[gt_col].tolist(), scoring_mode, readings, metric_names, given)
    out = df.copy()
    for c, values in scores.items():
        out[c] = pd.Series(values, index=df.index, dtype="bool" if c in FLAG_COLUMNS else "float64")
    return out


def to_long(scored: pd.DataFrame, metric_names: Iterable[str] | None = None,
            keep_undefined: bool = False) -> pd.DataFrame:
    """Wide scores (a column per metric) as long ones: the other columns, then ``metric`` and ``value``,
    one block of rows per metric in registration order. A partial metric has no row where it is NaN
    (a question it does not apply to) unless ``keep_undefined``."""
    names = list(metric_names or metrics.scored_names())
    missing = [m for m in names if m not in scored.columns]
    if missing:
        raise KeyError(f"metric columns missing from scored frame: {missing}")
    base = scored.drop(columns=names)
    blocks = []
    for m in names:
        block = base.assign(metric=m, value=scored[m].astype("float64").to_numpy())
        if not keep_undefined and m in metrics.names() and metrics.get(m).partial:
            block = block[block["value"].notna()]
        blocks.append(block)
    if not blocks:
        return base.assign(metric=pd.Series(dtype=object), value=pd.Series(dtype="float64")).iloc[:0]
    return pd.concat(blocks, ignore_index=True)


def mean_scores(scores: pd.DataFrame, by: Iterable[str] = (), count_unanswered: bool = False) -> pd.DataFrame:
    """Mean ``value`` of long scores per group of ``by`` and ``metric``, groups sorted.

    ``n`` is the number of predictions scored (the rows the mean is over), ``n_left_out`` the
    number left out of it (``left_out`` rows: only paper mode leaves any out); the mean is NaN
    for a group with none scored. ``count_unanswered`` adds ``unanswered``: the predictions
    that gave no answer, left out or not. The only place scores are averaged.
    """
    by = list(by)
    need = [*by, "metric", "value", *(["unanswered"] if count_unanswered else [])]
    missing = [c for c in need if c not in scores.columns]
    if missing:
        raise KeyError(f"columns missing from the scores: {missing} (columns: {list(scores.columns)})")
    counts = ["n", "n_left_out", *(["unanswered"] if count_unanswered else [])]
    if scores.empty:
        return pd.DataFrame(columns=[*by, "metric", "value", *counts])
    lo = (scores["left_out"].fillna(False).astype(bool).to_numpy() if "left_out" in scores.columns
          else pd.Series(False, index=scores.index).to_numpy())
    work = scores[[*by, "metric"]].copy()
    work["value"] = pd.to_numeric(scores["value"], errors="coerce").astype("float64").where(~lo)
    work["n"] = (~lo).astype("int64")
    work["n_left_out"] = lo.astype("int64")
    if count_unanswered:
        work["unanswered"] = scores["unanswered"].fillna(False).astype(bool).astype("int64")
    g = work.groupby([*by, "metric"], observed=True, sort=True, dropna=False)
    out = g[["value"]].mean()
    out[counts] = g[counts].sum()
    out = out.reset_index()
    for c in counts:
        out[c] = out[c].astype("int64")
    return out[[*by, "metric", "value", *counts]]


def summarize(scored_df: pd.DataFrame, by: Iterable[str] | None = None) -> pd.DataFrame:
    """The means of a :func:`score_frame` result (what the CLI prints), by
    :func:`evaluation_py.scoring.line_scores.line_means`.

    Columns: the ``by`` columns, ``n`` (predictions in the group, left-out ones included),
    ``left_out`` (how many were left out of the means), ``unanswered`` (how many gave no answer)
    and the mean of every metric the frame was scored with over the predictions not left out (NaN when a
    group has none). With ``by`` empty, one row; groups sorted.
    """
    by = list(by or [])
    names = [n for n in metrics.scored_names() if n in scored_df.columns]  # the metrics scored
    missing = [c for c in [*by, *names, *FLAG_COLUMNS] if c not in scored_df.columns]
    if missing:
        raise KeyError(f"columns missing from scored frame: {missing}")
    lists = {c: scored_df[c].tolist() for c in [*names, *FLAG_COLUMNS]}
    lists["left_out"] = [bool(x) if x == x else False for x in lists["left_out"]]
    lists["unanswered"] = [bool(x) if x == x else False for x in lists["unanswered"]]
    keys = list(zip(*(scored_df[c].tolist() for c in by))) if by else None
    means = line_means(lists, names, keys)
    rows = [{**({c: v for c, v in zip(by, key)} if by else {}), **m} for key, m in means.items()]
    return pd.DataFrame(rows, columns=[*by, "n", "left_out", "unanswered", *names])


SCORE_QUESTION_COLUMNS = ("question_id", "source", "dataset", "template_id", "answer_gt")
INSTRUCTION_COLUMN = "output_instruction"  # read when the questions have it (instruction metrics)
SCORE_COLUMNS = ["cache_key", "model_name", "backend", "model", "table_format", "inference_mode", "scoring_mode",
                 "question_id", "table_id", "source", "dataset", "template_id", "metric", "value", "left_out",
                 "unanswered", "n_values_given", "n_values_expected"]


def inference_modes(requests: pd.DataFrame) -> pd.Series:
    """Each request's inference mode: its ``inference_mode`` column, ``direct`` for frames without one."""
    if "inference_mode" not in requests.columns:
        return pd.Series(extraction.DEFAULT_INFERENCE_MODE, index=requests.index, dtype=object)
    modes = requests["inference_mode"]
    if modes.isna().any():
        keys = requests.loc[modes.isna(), "cache_key"].head(3).tolist()
        raise ValueError(f"eval_requests: inference_mode is NULL for request(s) {keys}")
    return modes.astype(str)


def extract_answers(frame: pd.DataFrame) -> pd.Series:
    """The answer of each row's ``response`` (NULL stays NULL), through the extraction filter of its
    ``inference_mode`` (:func:`inference_modes`): what every metric and the judge read."""
    modes = inference_modes(frame)
    answers = pd.Series(None, index=frame.index, dtype=object)
    for mode, rows in frame.groupby(modes, sort=True).groups.items():
        answers.loc[rows] = extraction.extract(frame.loc[rows, "response"].tolist(), mode)
    return answers


def request_answers(requests: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """`requests` with each one's `response` (NULL where it has no prediction) and the `answer` it is scored on
    (extracted by its inference mode; a program's executed answer for pot): what every metric reads."""
    executed = [c for c in ("execution_answer",) if c in predictions.columns]  # pot: the program's answer
    merged = requests.merge(predictions[["cache_key", "response", *executed]], on="cache_key", how="left")
    merged["inference_mode"] = inference_modes(merged)
    merged["answer"] = answers_for_scoring(merged, extract_answers(merged))
    return merged


VERDICT_COLUMNS = ["cache_key", "metric", "value"]


def scores_table(requests: pd.DataFrame, predictions: pd.DataFrame, questions: pd.DataFrame,
                 verdicts: pd.DataFrame | None = None) -> pd.DataFrame:
    """``eval_scores``: one row per request, scoring mode (strict, then paper) and scored metric, then the
    rows of the verdict metrics given.

    Each response is read through the extraction filter of its request's inference mode; a request
    without an answer is unanswered (strict: scored 0; paper: left out). ``verdicts`` (``cache_key``,
    ``metric``, ``value``: a registered ``verdict`` metric's values, e.g. the judge's) add a row per
    scoring mode for each request with a verdict, and for each request without an answer (0, as every
    metric of one); a request answered but without a verdict (the judge failed) has no row of it."""
    q = questions[list(SCORE_QUESTION_COLUMNS) + [c for c in (INSTRUCTION_COLUMN,) if c in questions.columns]]
    merged = request_answers(requests, predictions).merge(q, on="question_id")
    given = _checked_verdicts(verdicts)
    # the lines are scored in plain Python, each on its own: every other row in a child process of its own
    # (alternate rows: the requests come grouped by model, and one model's answers cost more to read than
    # another's), on both cores; the build waits for these scores and has nothing else to run meanwhile
    shares = [merged] if len(merged) < PARALLEL_ROWS else [merged.iloc[0::2], merged.iloc[1::2]]
    scored = map_in_child_processes(_scored_in_both_modes, shares)
    wide_cols = [c for c in SCORE_COLUMNS if c not in ("metric", "value")]
    no_answer = merged["response"].isna().to_numpy()
    out = []
    for mode in BUILD_SCORING_MODES:
        part = _in_row_order([parts[mode] for parts in scored])
        part["scoring_mode"] = mode
        out.append(to_long(part[[*wide_cols, *metrics.scored_names()]]))
        for name in metrics.verdict_names():
            if name not in given:
                continue
            value = merged["cache_key"].map(given[name]).astype("float64")
            value = value.where(~no_answer, 0.0)
            keep = value.notna().to_numpy()
            out.append(part.loc[keep, wide_cols].assign(metric=name, value=value[keep].to_numpy()))
    return pd.concat(out, ignore_index=True)[SCORE_COLUMNS]


PARALLEL_ROWS = 2000  # fewer rows are scored in this process: a fork would cost more than it saves


def _in_row_order(shares: list[pd.DataFrame]) -> pd.DataFrame:
    return shares[0] if len(shares) == 1 else pd.concat(shares).sort_index(kind="stable")


def _scored_in_both_modes(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The wide scores of `rows` (with their value counts) in each build scoring mode."""
    rows = rows.assign(n_values_given=rows["answer"].map(n_values_given).astype("int64"),
                       n_values_expected=rows["answer_gt"].map(n_values_expected).astype("int64"))
    readings: dict = {}  # each answer is read the strict way once, for both modes
    # the answers are extracted already: the direct filter passes them on as they are
    return {mode: score_frame(rows, response_col="answer", gt_col="answer_gt", scoring_mode=mode,
                              readings=readings, instruction_col=INSTRUCTION_COLUMN)
            for mode in BUILD_SCORING_MODES}


def _checked_verdicts(verdicts: pd.DataFrame | None) -> dict[str, pd.Series]:
    """Verdict values per verdict metric, by cache key; a clear error for a frame that is not one."""
    if verdicts is None or len(verdicts) == 0:
        return {}
    missing = [c for c in VERDICT_COLUMNS if c not in verdicts.columns]
    if missing:
        raise KeyError(f"verdicts: columns {missing} missing (columns: {list(verdicts.columns)})")
    bad = sorted(set(verdicts["metric"]) - set(metrics.verdict_names()))
    if bad:
        raise ValueError(f"verdicts: {bad} are not registered verdict metrics (those are: "
                         f"{', '.join(metrics.verdict_names())})")
    twice = verdicts[verdicts.duplicated(["cache_key", "metric"], keep=False)]
    if len(twice):
        raise ValueError(f"verdicts: request {twice['cache_key'].iloc[0]!r} has more than one "
                         f"{twice['metric'].iloc[0]!r} verdict")
    values = verdicts.dropna(subset=["value"])
    return {name: group.set_index("cache_key")["value"] for name, group in values.groupby("metric", sort=True)}


# Answer verbosity (analysis_answer_verbosity) compares these two counts, so they count alike: the distinct
# non-empty normalised values, as the scorer compares them. An answer equal to the gt has as many as the gt.
def _count_values(values) -> int:
    return len({v for v in values if v})


def n_values_given(response) -> int:
    if response is None or (isinstance(response, float) and pd.isna(response)):
        return 0
    return _count_values(response_values(clean_response(response)))


def n_values_expected(answer_gt) -> int:
    if answer_gt is None or (isinstance(answer_gt, float) and pd.isna(answer_gt)):
        return 0
    return _count_values(gt_values(answer_gt))
