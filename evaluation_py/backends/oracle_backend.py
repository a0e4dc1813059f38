"""Answers every request with its ground truth, written as a model is asked to answer.

The gt string `{a | 1} || {b | 2.5}` becomes `a || 1 || b || 2.5`: braces removed and the ` | `
between values of a row turned into ` || `, so scoring the oracle gives exactly 1.0. A gt without
braces (a bare value) is returned as it is. Config: none.
"""
from __future__ import annotations

from typing import Callable

from .base import Backend, Prediction, PredictionRequest, register



def gt_to_answer(answer_gt: str) -> str:
    # Split exactly as the scorer splits a gt (on braces and bars), so that malformed release gts such as
    # `{-14597)` or `{1} || 1{2}` still give back the values the scorer expects.
    from evaluation_py.normalize import _GT_SPLIT_RE

    values = [v.strip() for v in _GT_SPLIT_RE.split((answer_gt or "").strip())]
    return " || ".join(v for v in values if v)


@register("oracle")
class OracleBackend(Backend):
    request_fields = ("answer_gt",)  # a corrected ground truth is a new answer

    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        for r in requests:
            on_result(Prediction(cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                                 response=gt_to_answer(r.answer_gt), error_kind=None, attempts=1, latency_s=0.0))
