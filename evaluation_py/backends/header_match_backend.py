"""The `header_match` backend: the non-LLM header-matching baseline (no model, no server).

It reads the question text and the table's HTML as the question shows it from the benchmark
(`BenchmarkLookup`, by the request's question_id and table_id: a question's own view where it has one) and ignores the messages. A table without HTML is answered `no answer`; an exception while
answering becomes a prediction with `response=None` and `error_kind="baseline_error"`.
"""
from __future__ import annotations

import time
from typing import Callable

from evaluation_py.backends.base import Backend, Prediction, PredictionRequest, register
from evaluation_py.baselines.header_match import NO_ANSWER, answer_question


@register("header_match")
class HeaderMatchBackend(Backend):
    """Baseline without a model: answers with the table cells whose headers the question names."""

    needs_model = False
    benchmark_fields = ("question", "table_html")  # read instead of the messages

    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        for request in requests:
            start = time.perf_counter()
            response = None
            error_kind = None
            try:
                html = self.benchmark.question_table_html(request.question_id, request.table_id)
                if html:
                    response = answer_question(html, self.benchmark.question(request.question_id))
                else:
                    response = NO_ANSWER
            except Exception:  # a floor baseline must never stop a run
                error_kind = "baseline_error"
            on_result(
                Prediction(
                    cache_key=request.cache_key,
                    question_id=request.question_id,
                    model_name=request.model_name,
                    response=response,
                    error_kind=error_kind,
                    attempts=1,
                    latency_s=time.perf_counter() - start,
                )
            )
