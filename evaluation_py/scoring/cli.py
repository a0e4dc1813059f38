"""Score a responses file.

``python -m evaluation_py.scoring RESPONSES [--scoring-mode MODE] [--metrics f1,cc,...] [--inference-mode MODE]
[--by KEY] [--benchmark DB | --release FILE]``

The file is JSONL or one JSON list, in any of the release's shapes, read by
:mod:`evaluation_py.scoring.response_file` (the replay backend's reader too): an id (``qap_id`` or ``id``), the
answer (``response`` or ``output``: text, a number, or null for a missing response) and the ground truth
(``gt`` or ``ground_truth``). A line without a ground truth takes it by id from ``--benchmark DB`` (a built
database's ``benchmark_questions``) or ``--release FILE`` (a release qaps JSON); an id that neither the line
nor that source knows is an error naming the id and the line. ``--scoring-mode`` is ``strict`` (the default:
:mod:`evaluation_py.scoring.strict_reading`), ``paper`` (the release's own procedure:
:mod:`evaluation_py.scoring.paper_reading`) or one of the release's variants of it, ``paper-hitab`` and
``paper-gpt`` (:mod:`evaluation_py.scoring.scoring_modes`). ``--inference-mode``
(default ``direct``) picks the extraction filter that takes the answer out of
each response (:mod:`evaluation_py.scoring.extraction`).

``--metrics`` names the metrics computed (:mod:`evaluation_py.scoring.metrics`: ``precision``, ``recall``,
``f1``, ``cc``, ``exact_match``, ``rouge_l``, ``bleu``); by default the paper modes compute the release's
four (precision, recall, f1, cc) and strict mode every metric of a value match (the four and
``exact_match``). The text metrics' libraries are imported only when one is asked for. A file of
``SPLIT_FROM`` lines or more is scored in two halves at once where two cores are free (a forked child each,
``HCTQA_NO_FORK=1`` keeps it in one process); the scores are the same either way.

Prints one JSON object: ``scoring_mode``, ``inference_mode``, ``n``,
``left_out``, ``unanswered``, the mean of every metric computed and, with ``--by``, ``groups`` (one such object per group, without the modes). ``--by dataset`` takes the dataset
from the id (:func:`evaluation_py.scoring.scores.dataset_of`: the release's prefix
before the first ``--``, the domain of a synthetic ``syn--DOMAIN--...`` id)
unless the lines carry a ``dataset`` key; any other key must be present on
every line. Numbers are rounded to 4 decimals.

Bad input exits with status 2 and a message naming the file and, where it
applies, the line: a missing or unreadable file, a file with no responses, a
malformed line, a missing field, an id without a ground truth, an id given on more than one line.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, NamedTuple

from .response_file import ID_KEYS, ResponseFileError, read_response_records
from .scoring_modes import DEFAULT_SCORING_MODE, SCORING_MODES

# the scoring rules are imported when a file is scored: --help and a bad argument answer at once; pandas never
DEFAULT_INFERENCE_MODE = "direct"  # extraction.DEFAULT_INFERENCE_MODE (a unit test keeps them equal)
# From this many lines on, a file is scored in two halves at once, each in a forked child on a core of its own.
SPLIT_FROM = 20_000

class InputError(Exception):
    """Bad input file; the message names the file and, where it applies, the line."""


class Responses(NamedTuple):
    """A responses file's lines as parallel lists (``groups``: None without ``by``)."""
    ids: list
    responses: list
    gts: list
    groups: list | None


def read_responses(path: str, by: str | None = None, ground_truth: dict[str, str] | None = None,
                   ground_truth_source: str = "") -> Responses:
    """Read a responses file: each line's id, response and gt (and group when ``by`` is given).

    A line without a ground truth takes it from ``ground_truth`` (by id; ``ground_truth_source`` names where
    it came from in the error for an id it lacks)."""
    from .line_scores import dataset_of
    ids: list = []
    responses: list = []
    gts: list = []
    groups: list = []
    first: dict[str, Any] = {}  # id -> its first record
    duplicates: dict[str, list] = {}
    try:
        for rec in read_response_records(path):  # shapes and keys: evaluation_py.scoring.response_file
            qid = rec.id
            if qid is None:
                raise InputError(f"{rec.where}: missing id (one of {', '.join(ID_KEYS)})")
            if not rec.has_response:
                raise InputError(f"{rec.where}: missing 'response' (or 'output')")
            gt = rec.gt
            if gt is None:
                if ground_truth is None:
                    raise InputError(f"{rec.where}: missing 'gt' (or 'ground_truth'); --benchmark DB or --release "
                                     "FILE supplies it by id")
                gt = ground_truth.get(qid)
                if gt is None:
                    raise InputError(f"{rec.where}: id {qid!r} has no 'gt' and {ground_truth_source or 'the ground truth given'} "
                                     "does not know it")
            if qid in first:
                duplicates.setdefault(qid, [first[qid]]).append(rec)
            else:
                first[qid] = rec
            ids.append(qid)
            responses.append(rec.response)
            gts.append(gt)
            if by is not None:
                if by in rec.fields:
                    groups.append(_group_name(rec.fields[by]))
                elif by == "dataset":
                    groups.append(dataset_of(qid))
                else:
                    raise InputError(f"{rec.where}: missing key {by!r} named by --by")
        if not ids:
            raise InputError(f"{path}: no responses (the file is empty or holds only blank lines)")
        if duplicates:
            shown = "; ".join(f"{qid!r} on lines {', '.join(str(r.line) for r in recs)}"
                              for qid, recs in list(duplicates.items())[:5])
            more = f" and {len(duplicates) - 5} more" if len(duplicates) > 5 else ""
            raise InputError(f"{path}: {len(duplicates)} id(s) given more than once: {shown}{more}")
    except ResponseFileError as exc:
        raise InputError(str(exc)) from None
    return Responses(ids, responses, gts, groups if by is not None else None)


def _group_name(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def _num(x: Any) -> float | None:
    x = float(x)
    if math.isnan(x):
        return None
    return round(x, 4)


def _row_dict(means: dict, names) -> dict:
    out = {"n": means["n"], "left_out": means["left_out"], "unanswered": means["unanswered"]}
    for m in names:
        out[m] = _num(means[m])
    return out


def score_file(path: str, scoring_mode: str = DEFAULT_SCORING_MODE, by: str | None = None,
               inference_mode: str = DEFAULT_INFERENCE_MODE, metric_names=None, benchmark: str | None = None,
               release: str | None = None) -> dict:
    """Score one responses file; returns the JSON-ready summary the CLI prints (``metric_names``: the
    metrics computed, default :func:`evaluation_py.scoring.scores.default_metrics` of the scoring mode;
    ``benchmark`` / ``release``: a built database / a release qaps file giving the ground truth by id to
    the lines that carry none)."""
    from . import extraction
    from .ground_truth import GroundTruthError, ground_truth_from_benchmark, ground_truth_from_release
    from .line_scores import checked_metric_names, default_metrics, line_means

    names = checked_metric_names(metric_names) if metric_names is not None else default_metrics(scoring_mode)
    if benchmark is not None and release is not None:
        raise InputError("give --benchmark or --release, not both")
    truth, source = None, ""
    try:
        if benchmark is not None:
            truth, source = ground_truth_from_benchmark(benchmark), f"the benchmark {benchmark}"
        elif release is not None:
            truth, source = ground_truth_from_release(release), f"the release file {release}"
    except GroundTruthError as exc:
        raise InputError(str(exc)) from None
    lines = read_responses(path, by, truth, source)
    answers = extraction.extract(lines.responses, inference_mode)
    scores = _scored(answers, lines.gts, scoring_mode, names)
    result = {"scoring_mode": scoring_mode, "inference_mode": inference_mode,
              **_row_dict(line_means(scores, names)[None], names)}
    if by is not None:
        result["groups"] = {str(group): _row_dict(means, names)
                            for group, means in line_means(scores, names, lines.groups).items()}
    return result


def _scored(answers: list, gts: list, scoring_mode: str, names) -> dict[str, list]:
    """score_lists of the lines, a large file's two halves at once where two cores are free (the lists in the
    lines' order either way: each line is scored on its own)."""
    from .line_scores import score_lists

    n = len(answers)
    if n < SPLIT_FROM or (os.cpu_count() or 1) < 2:
        return score_lists(answers, gts, scoring_mode=scoring_mode, metric_names=names)
    from generator_py.core.child_process import map_in_child_processes

    halves = map_in_child_processes(
        lambda part: score_lists(answers[part], gts[part], scoring_mode=scoring_mode, metric_names=names),
        [slice(0, n // 2), slice(n // 2, n)])
    return {column: values + halves[1][column] for column, values in halves[0].items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation_py.scoring",
        description="Score HCT-QA responses (precision, recall, F1, complete containment, ...).",
    )
    parser.add_argument("responses", help="responses file, JSONL or one JSON list: objects with qap_id or id, "
                                          "response or output, and gt or ground_truth (or neither: see --benchmark)")
    parser.add_argument("--scoring-mode", choices=SCORING_MODES, default=DEFAULT_SCORING_MODE,
                        help="strict (the default): read answers as a fair reader would (final-answer markers, the "
                             "gt format, lists, numbers within half a unit of the gt's last decimal) and score "
                             "unanswered responses 0; paper: the HCT-QA release's own procedure, exact text "
                             "matching, missing/no-answer/error responses left out of the averages; paper-hitab, "
                             "paper-gpt: the release's variants of paper for HiTab and for GPT answers")
    parser.add_argument("--inference-mode", default=DEFAULT_INFERENCE_MODE, metavar="MODE",
                        help="the inference mode the responses were made in; its extraction filter takes the "
                             "answer out of each response (default: direct, the response as it is)")
    parser.add_argument("--metrics", default=None, metavar="M1,M2",
                        help="the metrics to compute, comma-separated (default: paper mode precision, recall, f1, "
                             "cc; strict mode those and exact_match; rouge_l and bleu on request)")
    truth = parser.add_mutually_exclusive_group()
    truth.add_argument("--benchmark", default=None, metavar="DB",
                       help="a built database (benchmark_questions): the ground truth, by id, of lines without one")
    truth.add_argument("--release", default=None, metavar="FILE",
                       help="a release qaps JSON (or its folder): the ground truth, by id, of lines without one")
    parser.add_argument("--by", default=None, metavar="KEY",
                        help="also report per group: 'dataset' (the release's id prefix, or a synthetic id's "
                             "domain) or any key of the lines")
    args = parser.parse_args(argv)
    from . import extraction
    from .line_scores import checked_metric_names

    try:
        extraction.filter_name_for(args.inference_mode)
    except LookupError as exc:
        print(f"error: inference mode {args.inference_mode!r} has no extraction filter: {exc}", file=sys.stderr)
        return 2
    names = None
    if args.metrics is not None:
        try:
            names = checked_metric_names(args.metrics.split(","))
        except ValueError as exc:
            print(f"error: --metrics: {exc}", file=sys.stderr)
            return 2
    try:
        result = score_file(args.responses, args.scoring_mode, args.by, args.inference_mode, names,
                            args.benchmark, args.release)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
