"""The `header_match` backend: the non-LLM header-matching baseline (no model, no server).

It reads the question text and the table's HTML as the question shows it from the benchmark
(`BenchmarkLookup`, by the request's question_id and table_id: a question's own view where it has one) and ignores the messages. A table without HTML is answered `no answer`; an exception while
answering becomes a prediction with `response=None` and `error_kind="baseline_error"`.
"""
from __future__ import annotations

import os
import time
from typing import Callable

from evaluation_py.backends.base import Backend, Prediction, PredictionRequest, register
from evaluation_py.baselines.header_match import NO_ANSWER, answer_question
from generator_py.core.child_process import map_in_child_processes


@register("header_match")
class HeaderMatchBackend(Backend):
    """Baseline without a model: answers with the table cells whose headers the question names."""

    needs_model = False
    benchmark_fields = ("question", "table_html")  # read instead of the messages

    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        # pure-Python work: answered by one forked child per core (the benchmark lookup is inherited, not sent),
        # up to CHUNK requests each (about a second of work), so the answers come back and a stop is seen round
        # by round; each round forks the build's process again, so rounds are few
        workers = max(1, min(2, os.cpu_count() or 1))
        step = CHUNK * workers
        for start in range(0, len(requests), step):
            parts = [requests[i:i + CHUNK] for i in range(start, min(start + step, len(requests)), CHUNK)]
            for part, answers in zip(parts, map_in_child_processes(self._answers, parts)):
                for request, (response, error_kind, latency) in zip(part, answers):
                    on_result(Prediction(cache_key=request.cache_key, question_id=request.question_id,
                                         model_name=request.model_name, response=response, error_kind=error_kind,
                                         attempts=1, latency_s=latency))

    def _answers(self, requests: list[PredictionRequest]) -> list[tuple]:
        """(response, error_kind, seconds) of each request."""
        out = []
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
            out.append((response, error_kind, time.perf_counter() - start))
        return out


CHUNK = 750  # requests per child and round
