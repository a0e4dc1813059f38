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

Scores come wide (:func:`score_frame`: a column per metric, for one scoring mode) or long
(:func:`to_long`, :func:`scores_table`: one row per prediction, scoring mode and metric, with
``metric`` and ``value``: what ``eval_scores`` holds). :func:`mean_scores` is the one place
scores are averaged (the CLI, the breakdowns and the report use it; ``eval_summary`` is its SQL
twin). No dbt imports.
"""
from __future__ import annotations

from typing import Iterable, Sequence

import pandas as pd

from generator_py.release.gt import gt_value_list, gt_values

from . import extraction, metrics, strict_reading as strict_rules
from .metrics import Match
from ..modes.outcomes import answers_for_scoring
from .paper_reading import (clean_response, gpt_values, hitab_values, is_left_out, is_missing, percent_free,
                            response_value_list, response_values)
from .scoring_modes import (BUILD_SCORING_MODES, DEFAULT_SCORING_MODE, SCORING_MODE_READINGS,  # re-exported
                            SCORING_MODES)

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
    ``instruction`` metric checks the response against; default none.
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
    values_of: dict[Match, tuple] = {}
    text_values_of: dict[tuple, tuple] = {}
    strict_cache: dict = {} if readings is None else readings
    gt_cache: dict = {}
    gt_text_cache: dict = {}
    paper_cache: dict = {}
    paper_text_cache: dict = {}
    refusal_gts: dict = {}  # paper mode: whether a gt is the documented refusal, read the strict way
    read, read_gt = strict_rules.read_response, strict_rules.read_gt
    strict = scoring_mode == "strict"
    value_rule, hitab = _VALUE_RULES.get(scoring_mode), scoring_mode == "paper-hitab"
    for resp, gt, instruction in zip(responses, gts, instructions):
        gt_override = None
        gt = "" if is_missing(gt) else str(gt)
        key = None if is_missing(resp) else str(resp)
        reading = strict_cache.get(key)
        if reading is None:
            reading = strict_cache[key] = read(key)
        g = gt_cache.get(gt)
        if g is None:
            g = gt_cache[gt] = read_gt(gt) if strict else gt_values(gt)
        answer_text = ""
        if strict:
            match, left_out = strict_rules.match(reading, g), False
            if by_text and not reading.unanswered:
                answer_text = " ".join(v[0][0] for v in reading.values)
        elif key is None or is_left_out(key):
            match, left_out = Match(0, 0, len(g), 0), True
        else:
            rlist = paper_cache.get(key)
            if rlist is None:
                rlist = response_value_list(clean_response(key))
                rlist = paper_cache[key] = value_rule(rlist) if value_rule else rlist
            rset, gset = frozenset(rlist), g
            if hitab:
                rset, gset = hitab_values(rset, g)
            match, left_out = paper_match(rset, gset), False
            if by_text:
                if gset is not g:  # the number rule read both values anew: the texts are those values
                    (answer_text,), (gt_override,) = rset, gset
                else:
                    answer_text = paper_text_cache.get(key)
                    if answer_text is None:
                        answer_text = paper_text_cache[key] = _joined(rlist)
        values = values_of.get(match)
        if values is None:
            values = values_of[match] = tuple(m.score(match) for m in by_match)
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
        out["left_out"].append(left_out)
        out["unanswered"].append(reading.unanswered)
    return out


def _joined(values: Iterable[str]) -> str:
    """Distinct non-empty values, stripped, in their order, joined by a space (a text metric's input)."""
    return " ".join(dict.fromkeys(v for v in (x.strip() for x in values) if v))


def score_one(response: str | None, gt: str, scoring_mode: str = DEFAULT_SCORING_MODE,
              inference_mode: str = extraction.DEFAULT_INFERENCE_MODE) -> dict:
    """Score one response against one ``gt`` string: every registered metric, ``left_out``, ``unanswered``."""
    answer = extraction.extract([response], inference_mode)
    return {c: v[0] for c, v in score_lists(answer, [gt], scoring_mode).items()}


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
    """Wide view of :func:`mean_scores` over a :func:`score_frame` result (what the CLI prints).

    Columns: the ``by`` columns, ``n`` (predictions in the group, left-out ones included),
    ``left_out`` (how many were left out of the means), ``unanswered`` (how many gave no answer)
    and the mean of every metric the frame was scored with over the predictions not left out (NaN when a
    group has none). With ``by`` empty, one row.
    """
    by = list(by or [])
    names = [n for n in metrics.scored_names() if n in scored_df.columns]  # the metrics scored
    missing = [c for c in [*by, *names, *FLAG_COLUMNS] if c not in scored_df.columns]
    if missing:
        raise KeyError(f"columns missing from scored frame: {missing}")
    # NaN rows kept: every metric has the same n, a partial one's mean is over the rows it applies to
    means = mean_scores(to_long(scored_df[[*by, *names, *FLAG_COLUMNS]], names, keep_undefined=True), by,
                        count_unanswered=True)
    keys = [*by, "n", "n_left_out", "unanswered"]
    wide = means.set_index([*keys, "metric"])["value"].unstack("metric").reset_index()
    wide.columns.name = None
    wide["n"] = wide["n"] + wide["n_left_out"]
    wide = wide.rename(columns={"n_left_out": "left_out"})
    return wide[[*by, "n", "left_out", "unanswered", *names]].reset_index(drop=True)


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
    merged["n_values_given"] = merged["answer"].map(n_values_given).astype("int64")
    merged["n_values_expected"] = merged["answer_gt"].map(n_values_expected).astype("int64")
    wide_cols = [c for c in SCORE_COLUMNS if c not in ("metric", "value")]
    given = _checked_verdicts(verdicts)
    out = []
    readings: dict = {}  # each answer is read the strict way once, for both modes
    for mode in BUILD_SCORING_MODES:
        # the answers are extracted already: the direct filter passes them on as they are
        part = score_frame(merged, response_col="answer", gt_col="answer_gt", scoring_mode=mode, readings=readings,
                           instruction_col=INSTRUCTION_COLUMN)
        part["scoring_mode"] = mode
        out.append(to_long(part[[*wide_cols, *metrics.scored_names()]]))
        no_answer = merged["response"].isna().to_numpy()
        for name in metrics.verdict_names():
            if name not in given:
                continue
            value = merged["cache_key"].map(given[name]).astype("float64")
            value = value.where(~no_answer, 0.0)
            keep = value.notna().to_numpy()
            out.append(part.loc[keep, wide_cols].assign(metric=name, value=value[keep].to_numpy()))
    return pd.concat(out, ignore_index=True)[SCORE_COLUMNS]


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
