"""Scores of answers line by line, in plain Python (no pandas): what the scoring CLI runs, and what the frames
of :mod:`evaluation_py.scoring.scores` are made of.

:func:`score_lists` reads parallel lists of answers and ground-truth strings the way a scoring mode reads them
(:mod:`evaluation_py.scoring.strict_reading`, :mod:`evaluation_py.scoring.paper_reading`) and gives one list
per metric asked for, plus the flags ``left_out`` and ``unanswered``; :func:`line_means` averages such lists
(over the lines not left out), as a whole or per group. The package doc (:mod:`evaluation_py.scoring.scores`)
says what the modes and flags mean. No dbt imports, and no pandas: the CLI scores a file without it.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

from generator_py.release.gt import gt_value_list, gt_values

from . import extraction, metrics, strict_reading as strict_rules
from .metrics import Match
from .paper_reading import (clean_response, gpt_values, hitab_values, is_left_out, is_missing, percent_free,
                            response_value_list)
from .scoring_modes import DEFAULT_SCORING_MODE, SCORING_MODE_READINGS, SCORING_MODES

# the paper reading's variants: what each does to the response's values before they are compared
_VALUE_RULES = {"paper": None, "paper-hitab": percent_free, "paper-gpt": gpt_values}

FLAG_COLUMNS = ("left_out", "unanswered")


def _check_scoring_mode(scoring_mode: str) -> None:
    if scoring_mode not in SCORING_MODES:
        raise ValueError(f"unknown scoring mode {scoring_mode!r}; expected one of {SCORING_MODES}")


def paper_match(resp: frozenset, gt: frozenset) -> Match:
    """The release's comparison of two value sets: the values both hold match."""
    inter = len(resp & gt)
    return Match(len(resp), inter, len(gt), inter)


# The release's four metrics: what paper mode computes unless others are asked for.
PAPER_METRICS = ("precision", "recall", "f1", "cc")


def default_metrics(scoring_mode: str) -> tuple[str, ...]:
    """The metrics computed when none are asked for: paper mode the release's four, strict mode every
    registered metric of a value match (the text metrics, ROUGE-L and BLEU, are asked for by name)."""
    _check_scoring_mode(scoring_mode)
    if SCORING_MODE_READINGS[scoring_mode] == "paper":
        return PAPER_METRICS
    return tuple(n for n in metrics.scored_names() if metrics.get(n).reads == "match")


def checked_metric_names(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` in registration order, each a scored metric; a clear error naming an unknown one."""
    asked = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    scored = metrics.scored_names()
    unknown = [n for n in asked if n not in scored]
    if unknown:
        raise ValueError(f"unknown metric {unknown[0]!r}; the scored metrics are {', '.join(scored)}")
    if not asked:
        raise ValueError(f"no metric asked for; the scored metrics are {', '.join(scored)}")
    return tuple(n for n in scored if n in asked)


_LEFT_OUT = object()  # paper mode's cached reading of a response it leaves out


def score_lists(responses: Sequence, gts: Sequence, scoring_mode: str = DEFAULT_SCORING_MODE,
                readings: dict | None = None, metric_names: Iterable[str] | None = None,
                instructions: Sequence | None = None) -> dict[str, list]:
    """Score parallel lists of answers and gt strings: one list per metric of ``metric_names`` (default:
    every scored metric, :func:`evaluation_py.scoring.metrics.scored_names`), and ``left_out`` and ``unanswered``.

    Readings are cached per distinct response and ground truth (a build repeats both a lot),
    metric values per distinct match; ``readings`` (a dict) shares strict mode's response
    readings between calls on the same responses, so that scoring both modes reads each
    response the strict way once. A ``text`` metric compares the values each side holds as the
    mode reads them, joined by a space in their order (strict: the normalised values; paper: the
    cleaned response's and the gt's values); an unanswered or left-out response's text is empty.
    ``instructions``: per response its question's output instruction (None where it states none), what an
    ``instruction`` metric checks the response against; default none. A paper mode that asks no metric of the
    strict reading (a refusal metric) reads only whether each response is unanswered
    (:func:`evaluation_py.scoring.strict_reading.is_unanswered`), not its values.
    """
    _check_scoring_mode(scoring_mode)
    if len(responses) != len(gts):
        raise ValueError(f"responses and gts differ in length: {len(responses)} != {len(gts)}")
    names = metrics.scored_names() if metric_names is None else checked_metric_names(metric_names)
    registered = [metrics.get(name) for name in names]
    by_match = [m for m in registered if m.reads == "match"]
    by_text = [m for m in registered if m.reads == "text"]
    by_refusal = [m for m in registered if m.reads == "refusal"]
    by_instruction = [m for m in registered if m.reads == "instruction"]
    if instructions is None:
        instructions = [None] * len(responses)
    elif len(instructions) != len(responses):
        raise ValueError(f"responses and instructions differ in length: {len(responses)} != {len(instructions)}")
    out: dict[str, list] = {c: [] for c in (*(m.name for m in registered), *FLAG_COLUMNS)}
    columns = [out[m.name] for m in by_match]
    text_columns = [out[m.name] for m in by_text]
    refusal_columns = [(out[m.name], m.score) for m in by_refusal]
    instruction_columns = [(out[m.name], m.score) for m in by_instruction]
    add_left_out, add_unanswered = out["left_out"].append, out["unanswered"].append
    values_of: dict[tuple, tuple] = {}  # (n_given, n_given_matched, n_expected, n_expected_matched) -> values
    text_values_of: dict[tuple, tuple] = {}
    strict_cache: dict = {} if readings is None else readings
    unanswered_cache: dict = {}
    gt_cache: dict = {}
    gt_text_cache: dict = {}
    paper_cache: dict = {}
    paper_text_cache: dict = {}
    refusal_gts: dict = {}  # paper mode: whether a gt is the documented refusal, read the strict way
    read, read_gt, is_unanswered = strict_rules.read_response, strict_rules.read_gt, strict_rules.is_unanswered
    strict = scoring_mode == "strict"
    needs_reading = strict or bool(by_refusal)  # else only the unanswered flag of the strict reading
    value_rule, hitab = _VALUE_RULES.get(scoring_mode), scoring_mode == "paper-hitab"
    for resp, gt, instruction in zip(responses, gts, instructions):
        gt_override = None
        if gt.__class__ is not str:
            gt = "" if is_missing(gt) else str(gt)
        key = resp if resp.__class__ is str else (None if is_missing(resp) else str(resp))
        reading = None
        if needs_reading:
            reading = strict_cache.get(key)
            if reading is None:
                reading = strict_cache[key] = read(key)
            unanswered = reading.unanswered
        else:
            unanswered = unanswered_cache.get(key)
            if unanswered is None:
                known = strict_cache.get(key)
                unanswered = unanswered_cache[key] = known.unanswered if known is not None else is_unanswered(key)
        g = gt_cache.get(gt)
        if g is None:
            g = gt_cache[gt] = read_gt(gt) if strict else gt_values(gt)
        answer_text = ""
        if strict:
            match, left_out = strict_rules.match(reading, g), False
            counts = match
            if by_text and not reading.unanswered:
                answer_text = " ".join(v[0][0] for v in reading.values)
        else:
            paper = paper_cache.get(key)
            if paper is None:
                if key is None or is_left_out(key):
                    paper = _LEFT_OUT
                else:
                    rlist = response_value_list(clean_response(key))
                    rlist = value_rule(rlist) if value_rule else rlist
                    paper = (frozenset(rlist), rlist)
                paper_cache[key] = paper
            if paper is _LEFT_OUT:
                counts, left_out = (0, 0, len(g), 0), True
            else:
                rset, gset = paper[0], g
                if hitab:
                    rset, gset = hitab_values(rset, g)
                inter = len(rset & gset)
                counts, left_out = (len(rset), inter, len(gset), inter), False
                if by_text:
                    if gset is not g:  # the number rule read both values anew: the texts are those values
                        (answer_text,), (gt_override,) = rset, gset
                    else:
                        answer_text = paper_text_cache.get(key)
                        if answer_text is None:
                            answer_text = paper_text_cache[key] = _joined(paper[1])
        values = values_of.get(counts)
        if values is None:
            match = Match(*counts)
            values = values_of[counts] = tuple(m.score(match) for m in by_match)
        for col, v in zip(columns, values):
            col.append(v)
        if by_text:
            gt_text = gt_text_cache.get(gt)
            if gt_text is None:
                gt_text = gt_text_cache[gt] = (" ".join(t for t, _, _ in g.values) if strict
                                               else _joined(gt_value_list(gt)))
            pair = (answer_text, gt_text if gt_override is None else gt_override)
            text_values = text_values_of.get(pair)
            if text_values is None:
                text_values = text_values_of[pair] = tuple(m.score(*pair) for m in by_text)
            for col, v in zip(text_columns, text_values):
                col.append(v)
        if by_refusal:
            unanswerable = g.refusal if strict else refusal_gts.get(gt)
            if unanswerable is None:
                unanswerable = refusal_gts[gt] = read_gt(gt).refusal
            for col, score in refusal_columns:
                col.append(score(reading.refused, unanswerable))
        for col, score in instruction_columns:
            col.append(score(key, instruction))
        add_left_out(left_out)
        add_unanswered(unanswered)
    return out


def _joined(values: Iterable[str]) -> str:
    """Distinct non-empty values, stripped, in their order, joined by a space (a text metric's input)."""
    return " ".join(dict.fromkeys(v for v in (x.strip() for x in values) if v))


def score_one(response: str | None, gt: str, scoring_mode: str = DEFAULT_SCORING_MODE,
              inference_mode: str = extraction.DEFAULT_INFERENCE_MODE) -> dict:
    """Score one response against one ``gt`` string: every registered metric, ``left_out``, ``unanswered``."""
    answer = extraction.extract([response], inference_mode)
    return {c: v[0] for c, v in score_lists(answer, [gt], scoring_mode).items()}


def line_means(scores: dict[str, list], metric_names: Sequence[str], groups: Sequence | None = None) -> dict:
    """The means of :func:`score_lists`' lists: per group of ``groups`` (parallel to the lines; None: one
    group, ``None``), in sorted group order, a dict of ``n`` (lines), ``left_out``, ``unanswered`` and the mean
    of every metric of ``metric_names`` over the lines not left out where it is defined (not NaN: a partial
    metric's lines); NaN where there is none."""
    left_out, unanswered = scores["left_out"], scores["unanswered"]
    n = len(left_out)
    keys = [None] * n if groups is None else list(groups)
    if len(keys) != n:
        raise ValueError(f"groups and scores differ in length: {len(keys)} != {n}")
    rows: dict = {}
    for i, key in enumerate(keys):
        rows.setdefault(key, []).append(i)
    out = {}
    for key in sorted(rows, key=lambda k: (k is None, k)):
        idx = rows[key]
        kept = [i for i in idx if not left_out[i]]
        summary = {"n": len(idx), "left_out": len(idx) - len(kept), "unanswered": sum(1 for i in idx if unanswered[i])}
        for name in metric_names:
            column = scores[name]
            values = [column[i] for i in kept]
            values = [v for v in values if v == v]  # NaN is not equal to itself
            summary[name] = math.fsum(values) / len(values) if values else math.nan
        out[key] = summary
    return out


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
