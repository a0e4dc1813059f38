"""The metric registry: every score of a prediction is a registered function of its value match.

A scoring mode (:mod:`evaluation_py.scoring.scores`) reads a response and a ground truth into a
:class:`Match`: how many distinct values each side holds and how many of them the other side
matches. A metric is a function of that match, registered by name; ``eval_scores`` holds one
row per prediction, scoring mode and registered metric, and every summary, breakdown, plot
and regression takes any registered metric. Adding a metric is one :func:`register` call (or a plugin's
``hctqa.metrics`` entry point naming a :class:`Metric`); a name registered already is an error.

The four metrics of HCT-QA are registered here: ``precision``, ``recall``, ``f1`` and ``cc``
(complete containment: 1 when every ground-truth value is matched, else 0), then TReB's:
``exact_match`` (1 when the answer's values are exactly the ground truth's: every value given
matches one, every one is given; numbers compared as the scoring mode compares them, so at the
ground truth's precision in strict mode), ``rouge_l`` and ``bleu`` (text similarity of the
answer's values and the ground truth's, :mod:`evaluation_py.scoring.text_metrics`) and ``judge`` (the
verdict of an LLM judge, :mod:`evaluation_py.scoring.judge`).

What a metric reads (``reads``), so that metrics beyond a match fit the one registry:

- ``match`` (the default): ``score(Match) -> float``;
- ``text``: ``score(answer_text, gt_text) -> float`` over the values each side holds, as the
  scoring mode reads them, joined by a space (:func:`evaluation_py.scoring.scores.score_lists`);
- ``refusal``: ``score(refused, unanswerable) -> float``: whether the response declines to answer (strict
  reading's ``refused``, in both scoring modes) and whether the ground truth is the documented refusal
  (``no answer``: the table cannot answer the question);
- ``instruction``: ``score(answer, instruction) -> float``: the extracted answer as it came and the output
  instruction its question states (``benchmark_questions.output_instruction``, None for none);
- ``verdict``: no score function; the values come from outside (the judge's verdicts, in
  ``eval_judgements``) and only predictions with a verdict have a row.

A ``partial`` metric applies to some questions only (the refusal metrics, ``instruction_followed``): it
scores NaN on the others, which have no row of it in ``eval_scores``. :func:`scored_names` are
  the metrics every prediction has, :func:`names` every registered one. No dbt imports.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, NamedTuple

from generator_py.core.registry import Registry, RegistryError

from . import instructions, text_metrics


class Match(NamedTuple):
    """What a scoring mode found when it compared one response with one ground truth."""
    n_given: int  # distinct values read from the response
    n_given_matched: int  # of them, those that match some ground-truth value
    n_expected: int  # distinct ground-truth values
    n_expected_matched: int  # of them, those matched by some response value


@dataclass(frozen=True)
class Metric:
    name: str
    score: Callable[[Match], float]
    description: str
    # 0/1 outcomes: the regression fits a linear probability model (and a logit when asked).
    binary: bool = False
    reads: str = "match"  # what `score` is a function of: READS
    # Scores only the predictions it applies to (NaN elsewhere): those have a row in the long scores, the
    # others none, so its mean is over the questions it is about.
    partial: bool = False
    # A rate of a mistake (false_refusal): 0 is the best score, and what the oracle gets.
    lower_is_better: bool = False

    @property
    def best(self) -> float:
        return 0.0 if self.lower_is_better else 1.0


READS = ("match", "text", "refusal", "instruction", "verdict")


def _checked(name: str, metric: Metric) -> Metric:
    if not isinstance(metric, Metric):
        raise ValueError(f"metric {name!r} must be a Metric, got {type(metric).__name__}")
    if not name.isidentifier() or metric.name != name:
        raise ValueError(f"metric name {name!r} must be an identifier (it names rows and columns) and the "
                         f"Metric's own name (got {metric.name!r})")
    if metric.reads not in READS:
        raise ValueError(f"metric {name!r}: reads {metric.reads!r} must be one of {', '.join(READS)}")
    if metric.reads == "verdict":
        if metric.score is not None:
            raise TypeError(f"metric {name!r}: a verdict metric has no score function (its values are given)")
    elif not callable(metric.score):
        what = {"match": "a Match", "text": "an answer text and a ground-truth text",
                "refusal": "whether the response refused and whether the question is unanswerable",
                "instruction": "an answer and an output instruction"}[metric.reads]
        raise TypeError(f"metric {name!r}: score must be a function of {what}, got {type(metric.score).__name__}")
    return metric


METRICS: Registry[Metric] = Registry("metric", entry_point_group="hctqa.metrics", prepare=_checked)


def register(name: str, score: Callable[..., float] | None, description: str, binary: bool = False,
             reads: str = "match", partial: bool = False, lower_is_better: bool = False) -> Metric:
    """Register metric ``name``; it then appears in every score table and analysis. A name is registered once.

    ``reads`` says what ``score`` takes (module doc): a Match, the two texts, or nothing (``verdict``:
    ``score`` is None and the values are given to :func:`evaluation_py.scoring.scores.scores_table`)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise RegistryError(f"metric name {name!r} must be an identifier (it names rows and columns)")
    return METRICS.register(name, Metric(name, score, description, binary, reads, partial, lower_is_better))


def unregister(name: str) -> None:
    """Remove a registered metric (tests register toy ones and take them away)."""
    METRICS.unregister(name)


def names() -> tuple[str, ...]:
    """The registered metrics, in registration order (the order of every table)."""
    return METRICS.names()


def scored_names() -> tuple[str, ...]:
    """The metrics scoring computes for every prediction (``match`` and ``text`` ones), in order."""
    return tuple(m.name for m in METRICS if m.reads != "verdict")


def verdict_names() -> tuple[str, ...]:
    """The metrics whose values come from outside (a judge), in order."""
    return tuple(m.name for m in METRICS if m.reads == "verdict")


def get(name: str) -> Metric:
    return METRICS.get(name)


def is_binary(name: str) -> bool:
    return get(name).binary


def precision(m: Match) -> float:
    return m.n_given_matched / max(m.n_given, 1) if m.n_given_matched else 0.0


def recall(m: Match) -> float:
    return m.n_expected_matched / max(m.n_expected, 1) if m.n_expected_matched else 0.0


def f1(m: Match) -> float:
    p, r = precision(m), recall(m)
    return 2.0 * p * r / (p + r) if p + r > 0 else 0.0


def complete_containment(m: Match) -> float:
    return 1.0 if m.n_expected > 0 and m.n_expected_matched == m.n_expected else 0.0


def exact_match(m: Match) -> float:
    """Precision and recall both 1: nothing missing, nothing extra (two values read as the same
    number of the ground truth both match it). TReB's own compares letter counts, so 42 == 43."""
    return 1.0 if 0 < m.n_given == m.n_given_matched and 0 < m.n_expected == m.n_expected_matched else 0.0


register("precision", precision, "share of the response's values that match a ground-truth value")
register("recall", recall, "share of the ground truth's values matched by a response value")
register("f1", f1, "harmonic mean of precision and recall (0 when both are 0)")
register("cc", complete_containment, "complete containment: 1 when every ground-truth value is matched",
         binary=True)
register("exact_match", exact_match, "1 when the answer's values are exactly the ground truth's (numbers at its "
         "precision in strict mode): every value given matches one, every one is given", binary=True)
register("rouge_l", text_metrics.rouge_l, "ROUGE-L F-measure of the answer's values and the ground truth's, "
         "joined by spaces (longest common word subsequence)", reads="text")
register("bleu", text_metrics.bleu, "sentence BLEU / 100 of the answer's values against the ground truth's, "
         "joined by spaces (sacrebleu, effective order)", reads="text")


def refusal_correct(refused: bool, unanswerable: bool) -> float:
    """On a question the table cannot answer: 1 when the response refuses, else 0 (NaN on the others)."""
    return (1.0 if refused else 0.0) if unanswerable else math.nan


def false_refusal(refused: bool, unanswerable: bool) -> float:
    """On a question the table answers: 1 when the response refuses it anyway, else 0 (NaN on the others)."""
    return math.nan if unanswerable else (1.0 if refused else 0.0)


register("judge", None, "the LLM judge's verdict (correct 1, incorrect 0, a score 0-10 as score / 10); only "
         "predictions with a parsed verdict have one (var judge_model)", reads="verdict")
register("refusal_correct", refusal_correct, "on the questions the table cannot answer (ground truth `no answer`): "
         "1 when the response refuses", binary=True, reads="refusal", partial=True)
register("false_refusal", false_refusal, "on the questions the table answers: 1 when the response refuses anyway "
         "(lower is better)", binary=True, reads="refusal", partial=True, lower_is_better=True)
register("instruction_followed", instructions.followed, "on the questions stating an output instruction: 1 when "
         "the answer follows it, checked by rule", binary=True, reads="instruction", partial=True)
