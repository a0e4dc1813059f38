"""HCT-QA scoring: precision, recall, F1 and complete containment (CC) on sets of values.

One prediction gets one set of numbers; the two modes only differ in how they
are averaged:

* ``strict``: every prediction counts; a missing response, an empty one, or
  one that starts with ``no answer`` / ``error`` scores 0 on every metric.
* ``paper``: predictions whose ``left_out`` flag is set (missing responses and
  ``no answer`` / ``error`` responses) are left out of the averages and
  counted in ``left_out``; this reproduces the HCT-QA release's own numbers.
  Empty responses are not left out: they score 0 (the release does the same).

The per-prediction metrics of a left-out prediction are 0, so a strict mean is
a plain mean of the columns and a paper mean is the mean over ``~left_out``.

See :mod:`evaluation_py.normalize` for cleaning and normalisation. No dbt imports.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import pandas as pd

from .normalize import clean_response, gt_values, is_left_out, normalize_value

MODES = ("strict", "paper")
METRICS = ("precision", "recall", "f1", "cc")

_ZERO = (0.0, 0.0, 0.0, 0)


def _prf(resp: frozenset | set, gt: frozenset) -> tuple[float, float, float, int]:
    if not resp or not gt:
        return _ZERO
    inter = len(resp & gt)
    if inter == 0:
        return _ZERO
    p = inter / len(resp)
    r = inter / len(gt)
    return p, r, 2.0 * p * r / (p + r), 1 if inter == len(gt) else 0


def _is_missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def score_one(response: str | None, gt: str) -> dict:
    """Score one response against one ``gt`` string.

    Returns ``{"precision", "recall", "f1", "cc", "left_out"}``; ``left_out`` says
    whether paper mode leaves this prediction out of its averages (its metrics
    are then 0, which is what strict mode counts).
    """
    if _is_missing(response):
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0, "cc": 0, "left_out": True}
    cleaned = clean_response(response)
    if is_left_out(cleaned):
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0, "cc": 0, "left_out": True}
    gt_set = gt_values("" if _is_missing(gt) else gt)
    resp_set = {normalize_value(v) for v in cleaned.split("||")}
    p, r, f, cc = _prf(resp_set, gt_set)
    return {"precision": p, "recall": r, "f1": f, "cc": cc, "left_out": False}


def score_lists(responses: Sequence, gts: Sequence) -> tuple[list, list, list, list, list]:
    """Score parallel lists; returns (precision, recall, f1, cc, left_out) lists. The fast path."""
    if len(responses) != len(gts):
        raise ValueError(f"responses and gts differ in length: {len(responses)} != {len(gts)}")
    gt_cache: dict = {}
    val_cache: dict = {}
    precision: list = []
    recall: list = []
    f1: list = []
    cc: list = []
    left_out: list = []
    p_app, r_app, f_app, c_app, l_app = precision.append, recall.append, f1.append, cc.append, left_out.append
    clean = clean_response
    norm = normalize_value
    val_get = val_cache.get
    gt_get = gt_cache.get
    for resp, gt in zip(responses, gts):
        if resp is None or resp.__class__ is not str:
            if _is_missing(resp):
                p_app(0.0); r_app(0.0); f_app(0.0); c_app(0); l_app(True)
                continue
            resp = str(resp)
        cleaned = clean(resp)
        low = cleaned[:9].lower()
        if low.startswith("no answer") or low.startswith("error"):
            p_app(0.0); r_app(0.0); f_app(0.0); c_app(0); l_app(True)
            continue
        gset = gt_get(gt)
        if gset is None:
            gset = gt_values("" if _is_missing(gt) else str(gt))
            gt_cache[gt] = gset
        rset = set()
        for v in cleaned.split("||"):
            nv = val_get(v)
            if nv is None:
                nv = norm(v)
                val_cache[v] = nv
            rset.add(nv)
        inter = len(rset & gset) if gset else 0
        if inter == 0:
            p_app(0.0); r_app(0.0); f_app(0.0); c_app(0)
        else:
            p = inter / len(rset)
            r = inter / len(gset)
            p_app(p); r_app(r); f_app(2.0 * p * r / (p + r)); c_app(1 if inter == len(gset) else 0)
        l_app(False)
    return precision, recall, f1, cc, left_out


def score_frame(df: pd.DataFrame, response_col: str = "response", gt_col: str = "gt") -> pd.DataFrame:
    """Return a copy of ``df`` with ``precision``, ``recall``, ``f1``, ``cc`` and ``left_out`` columns."""
    for col in (response_col, gt_col):
        if col not in df.columns:
            raise KeyError(f"column {col!r} not in frame (columns: {list(df.columns)})")
    p, r, f, c, lo = score_lists(df[response_col].tolist(), df[gt_col].tolist())
    out = df.copy()
    out["precision"] = pd.Series(p, index=df.index, dtype="float64")
    out["recall"] = pd.Series(r, index=df.index, dtype="float64")
    out["f1"] = pd.Series(f, index=df.index, dtype="float64")
    out["cc"] = pd.Series(c, index=df.index, dtype="int64")
    out["left_out"] = pd.Series(lo, index=df.index, dtype="bool")
    return out


def summarize(scored_df: pd.DataFrame, mode: str = "paper", by: Iterable[str] | None = None) -> pd.DataFrame:
    """Average a :func:`score_frame` result per group.

    Columns: the ``by`` columns, ``n`` (predictions in the group, left-out ones
    included), ``left_out`` (how many the mode left out: always 0 in strict
    mode), and the means of precision, recall, f1 and cc (NaN when a paper-mode
    group has nothing left to average). With ``by`` empty, one row for all.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {MODES}")
    by = list(by or [])
    missing = [c for c in [*by, *METRICS, "left_out"] if c not in scored_df.columns]
    if missing:
        raise KeyError(f"columns missing from scored frame: {missing}")
    work = scored_df[[*by, *METRICS, "left_out"]].copy()
    lo = work["left_out"].astype(bool)
    work["_n"] = 1
    if mode == "paper":
        work["_lo"] = lo.astype("int64")
        for m in METRICS:
            work[m] = work[m].astype("float64").where(~lo)
    else:
        work["_lo"] = 0
        for m in METRICS:
            work[m] = work[m].astype("float64").where(~lo, 0.0)
    agg = {"_n": "sum", "_lo": "sum", **{m: "mean" for m in METRICS}}
    if by:
        res = work.groupby(by, dropna=False, sort=True).agg(agg).reset_index()
    else:
        res = work.agg(agg).to_frame().T
    res = res.rename(columns={"_n": "n", "_lo": "left_out"})
    res["n"] = res["n"].astype("int64")
    res["left_out"] = res["left_out"].astype("int64")
    return res[[*by, "n", "left_out", *METRICS]].reset_index(drop=True)


def dataset_of(qap_id: str) -> str:
    """The dataset of a question id: its prefix before the first ``--`` (``psa--1--102--A0`` -> ``psa``)."""
    return str(qap_id).split("--", 1)[0]
