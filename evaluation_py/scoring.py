"""HCT-QA scoring: precision, recall, F1 and complete containment (CC) of each prediction, and their means.

Two modes, which differ in how a response is read and in what enters the means:

* ``strict`` (the default everywhere): the response is read as a fair reader would
  (:mod:`evaluation_py.strict_rules`: final-answer markers, the ground truth's own format,
  lists, numbers compared within half a unit of the ground truth's last decimal place).
  Every prediction enters the means; an unanswered one (missing, empty, a refusal, an error)
  scores 0 and is counted in ``unanswered``.
* ``paper``: the HCT-QA release's own procedure, bit for bit (:mod:`evaluation_py.normalize`):
  exact text matching after its cleaning, and missing / ``no answer`` / ``error`` responses
  left out of the means (counted in ``left_out``). This reproduces the release's numbers.

Per prediction, both modes compare *sets* of values: precision = matched response values /
max(response values, 1), recall = matched ground-truth values / max(ground-truth values, 1),
F1 their harmonic mean (0 when both are 0), CC = 1 when recall is 1.

``unanswered`` is one flag per prediction whatever the mode (strict's reading), so that both
modes report the same count; in ``paper`` mode the left-out predictions are among them.
No dbt imports.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import pandas as pd

from generator_py.release.gt import gt_values

from . import strict_rules
from .normalize import clean_response, is_left_out, is_missing, response_values

MODES = ("strict", "paper")
DEFAULT_MODE = "strict"
METRICS = ("precision", "recall", "f1", "cc")
SCORE_COLUMNS = (*METRICS, "left_out", "unanswered")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"unknown scoring mode {mode!r}; expected one of {MODES}")


def paper_prf(resp: frozenset, gt: frozenset) -> tuple[float, float, float, int]:
    """The release's metrics on two value sets (both non-empty: a split always gives a value)."""
    inter = len(resp & gt)
    if inter == 0:
        return 0.0, 0.0, 0.0, 0
    p = inter / max(len(resp), 1)
    r = inter / max(len(gt), 1)
    return p, r, 2.0 * p * r / (p + r), 1 if r == 1 else 0


def score_lists(responses: Sequence, gts: Sequence, mode: str = DEFAULT_MODE,
                readings: dict | None = None) -> dict[str, list]:
    """Score parallel lists of raw responses and gt strings; returns one list per :data:`SCORE_COLUMNS`.

    Readings are cached per distinct response and ground truth (a build repeats both a lot);
    ``readings`` (a dict) shares strict mode's response readings between calls on the same
    responses, so that scoring both modes reads each response the strict way once.
    """
    _check_mode(mode)
    if len(responses) != len(gts):
        raise ValueError(f"responses and gts differ in length: {len(responses)} != {len(gts)}")
    out: dict[str, list] = {c: [] for c in SCORE_COLUMNS}
    strict_cache: dict = {} if readings is None else readings
    strict_gt_cache: dict = {}
    paper_cache: dict = {}
    paper_gt_cache: dict = {}
    read, read_gt = strict_rules.read_response, strict_rules.read_gt
    for resp, gt in zip(responses, gts):
        gt = "" if is_missing(gt) else str(gt)
        key = None if is_missing(resp) else str(resp)
        reading = strict_cache.get(key)
        if reading is None:
            reading = strict_cache[key] = read(key)
        if mode == "strict":
            g = strict_gt_cache.get(gt)
            if g is None:
                g = strict_gt_cache[gt] = read_gt(gt)
            metrics, left_out = strict_rules.score(reading, g), False
        elif key is None or is_left_out(key):
            metrics, left_out = (0.0, 0.0, 0.0, 0), True
        else:
            rset = paper_cache.get(key)
            if rset is None:
                rset = paper_cache[key] = response_values(clean_response(key))
            g = paper_gt_cache.get(gt)
            if g is None:
                g = paper_gt_cache[gt] = gt_values(gt)
            metrics, left_out = paper_prf(rset, g), False
        for c, v in zip(METRICS, metrics):
            out[c].append(v)
        out["left_out"].append(left_out)
        out["unanswered"].append(reading.unanswered)
    return out


def score_one(response: str | None, gt: str, mode: str = DEFAULT_MODE) -> dict:
    """Score one response against one ``gt`` string: ``{precision, recall, f1, cc, left_out, unanswered}``."""
    return {c: v[0] for c, v in score_lists([response], [gt], mode).items()}


def score_frame(df: pd.DataFrame, response_col: str = "response", gt_col: str = "gt",
                mode: str = DEFAULT_MODE, readings: dict | None = None) -> pd.DataFrame:
    """A copy of ``df`` with the :data:`SCORE_COLUMNS` of ``mode`` added (``readings``: see :func:`score_lists`)."""
    for col in (response_col, gt_col):
        if col not in df.columns:
            raise KeyError(f"column {col!r} not in frame (columns: {list(df.columns)})")
    scores = score_lists(df[response_col].tolist(), df[gt_col].tolist(), mode, readings)
    out = df.copy()
    for c in SCORE_COLUMNS:
        dtype = {"cc": "int64", "left_out": "bool", "unanswered": "bool"}.get(c, "float64")
        out[c] = pd.Series(scores[c], index=df.index, dtype=dtype)
    return out


def summarize(scored_df: pd.DataFrame, by: Iterable[str] | None = None) -> pd.DataFrame:
    """Average a :func:`score_frame` result per group.

    Columns: the ``by`` columns, ``n`` (predictions in the group, left-out ones included),
    ``left_out`` (how many were left out of the means: only ``paper`` mode leaves any out),
    ``unanswered`` (how many gave no answer) and the means of precision, recall, f1 and cc over
    the predictions not left out (NaN when a group has none). With ``by`` empty, one row.
    """
    by = list(by or [])
    missing = [c for c in [*by, *SCORE_COLUMNS] if c not in scored_df.columns]
    if missing:
        raise KeyError(f"columns missing from scored frame: {missing}")
    work = scored_df[[*by, *SCORE_COLUMNS]].copy()
    lo = work["left_out"].astype(bool)
    for m in METRICS:
        work[m] = work[m].astype("float64").where(~lo)
    work["_n"] = 1
    work["left_out"] = lo.astype("int64")
    work["unanswered"] = work["unanswered"].astype(bool).astype("int64")
    agg = {"_n": "sum", "left_out": "sum", "unanswered": "sum", **{m: "mean" for m in METRICS}}
    if by:
        res = work.groupby(by, dropna=False, sort=True).agg(agg).reset_index()
    else:
        res = work.agg(agg).to_frame().T
    res = res.rename(columns={"_n": "n"})
    for c in ("n", "left_out", "unanswered"):
        res[c] = res[c].astype("int64")
    return res[[*by, "n", "left_out", "unanswered", *METRICS]].reset_index(drop=True)


def dataset_of(question_id: str) -> str:
    """The dataset of a question id.

    Release ids start with their dataset (``psa--1--102--A0`` -> ``psa``); the project's synthetic
    ids start with ``syn`` then the domain (``syn--accidents--casualties--v0007--r2--q03`` ->
    ``accidents``), the dataset ``benchmark_questions`` gives them.
    """
    parts = str(question_id).split("--", 2)
    if parts[0] == "syn" and len(parts) > 1 and parts[1]:
        return parts[1]
    return parts[0]
