"""A toy plugin of the hctqa factory: one metric and one backend, registered by entry point only.

- `values_given` (metric): how many distinct values the scoring read from the answer;
- `first_gt_value` (backend): answers every question with the first value of its ground truth, so every
  prediction has exactly one value, and a correct one.
"""
from __future__ import annotations

import time

from evaluation_py.backends.base import Backend, Prediction
from evaluation_py.scoring.metrics import Match, Metric
from generator_py.release.gt import gt_value_list


def values_given(m: Match) -> float:
    return float(m.n_given)


VALUES_GIVEN = Metric("values_given", values_given, "how many distinct values the answer gives")


class FirstGtValueBackend(Backend):
    """Answers with the first value of the ground truth (a plugin's baseline)."""

    benchmark_fields = ("answer_gt",)  # what it reads enters every request's cache key
    needs_model = False

    def run(self, requests, on_result):
        for request in requests:
            start = time.perf_counter()
            values = gt_value_list(self.benchmark.answer_gt(request.question_id) or "", lower=False, drop_zeros=False)
            first = values[0] if values else ""
            on_result(Prediction(request.cache_key, request.question_id, request.model_name, first,
                                 latency_s=time.perf_counter() - start))
