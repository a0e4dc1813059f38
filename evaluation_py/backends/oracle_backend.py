"""Answers every request with its ground truth, written as a model is asked to answer.

The gt string `{a | 1} || {b | 2.5}` becomes `a || 1 || b || 2.5`: braces removed and the ` | `
between values of a row turned into ` || `, so scoring the oracle gives exactly 1.0 in both modes. A
gt without braces (a bare value) is returned as it is. A question stating an output instruction is answered
as it asks (`evaluation_py.scoring.instructions.write`: a JSON array, each number with its unit, a prefix,
upper case). Config: none. The gt and the instruction come from the benchmark (`BenchmarkLookup`), never from
the request.
"""
from __future__ import annotations

from typing import Callable

from ..scoring.instructions import write
from .base import Backend, Prediction, PredictionRequest, register


def gt_to_answer(answer_gt: str) -> str:
    # Read the gt exactly as the scorer reads it (both modes share that reading), so that malformed
    # release gts such as `{148304} || 1{49616}` still give back the values the scorer expects.
    return " || ".join(gt_values_of(answer_gt))


def gt_values_of(answer_gt: str) -> list[str]:
    from generator_py.release.gt import gt_value_list

    return gt_value_list(answer_gt or "", lower=False, drop_zeros=False)


@register("oracle")
class OracleBackend(Backend):
    """Answers with the ground truth: a check of the whole chain (scores 1 where the chain is sound)."""

    benchmark_fields = ("answer_gt", "output_instruction")  # a corrected ground truth is a new answer
    capabilities = frozenset({"images"})  # it answers from the gt, so image requests check the chain too
    needs_model = False
    is_reference = True

    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        for r in requests:
            answer = gt_to_answer(self.benchmark.answer_gt(r.question_id))
            instruction = self.benchmark.output_instruction(r.question_id)
            if instruction is not None:  # written as the question asks (evaluation_py.scoring.instructions)
                answer = write(gt_values_of(self.benchmark.answer_gt(r.question_id)), instruction)
            on_result(Prediction(cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                                 response=answer, error_kind=None, attempts=1, latency_s=0.0))
