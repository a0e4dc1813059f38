"""Prediction requests for one model: which questions, which table rendering, which messages."""
from __future__ import annotations

from typing import Iterable

import pandas as pd

from .backends.base import PredictionRequest, backend_class, make_cache_key
from .backends.params import resolve_params
from .model_specs import ModelSpec
from .prompts import PROMPT_VERSION, build_messages
from generator_py.render.registry import format_names

RENDERING_COLUMN = {name: name for name in format_names(text_only=True)}  # a column of benchmark_tables each


def select_questions(spec: ModelSpec, questions: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The model's questions: its sources, then a seeded sample stable across runs and scales.

    The sample order depends on the seed and the question only (not on the model), so models with the
    same `sources` and `sample` answer the same questions and a smaller sample is part of a larger one:
    their scores compare on equal terms.
    """
    from generator_py.rng import stable_int

    q = questions
    if spec.sources:
        q = q[q["source"].isin(spec.sources)]
    if spec.sample is not None and len(q) > spec.sample:
        order = q["question_id"].map(lambda qid: stable_int(seed, "eval-sample", qid))
        q = q.assign(_order=order).sort_values("_order").head(spec.sample).drop(columns="_order")
    return q.sort_values(["table_id", "question_id"])


def build_requests(spec: ModelSpec, questions: pd.DataFrame, tables: pd.DataFrame, seed: int) -> list[PredictionRequest]:
    chosen = select_questions(spec, questions, seed)
    params = resolve_params(spec.params) if spec.backend in ("openai", "vllm", "llamacpp") else dict(spec.params)
    # Plain dicts: a DataFrame lookup per request (`.at`) costs more than rendering the prompt.
    table_ids = tables["table_id"].tolist()
    html_of = dict(zip(table_ids, tables["html"].tolist()))
    rows = list(zip(chosen["question_id"].tolist(), chosen["table_id"].tolist(), chosen["question"].tolist(),
                    chosen["answer_gt"].tolist()))
    side_fields = backend_class(spec.backend).request_fields
    out = []
    for table_format in spec.formats:
        column = RENDERING_COLUMN[table_format]
        text_of = html_of if column == "html" else dict(zip(table_ids, tables[column].tolist()))
        for question_id, table_id, question, answer_gt in rows:
            messages = build_messages(text_of[table_id], table_format, question, system_role=spec.system_role)
            side = {"question_id": question_id, "question": question, "table_html": html_of[table_id],
                    "answer_gt": answer_gt}
            identity = {"entry": spec.identity, "request": {f: side[f] for f in side_fields}}
            key = make_cache_key(spec.name, spec.backend, spec.model, params, messages, identity, PROMPT_VERSION)
            out.append(PredictionRequest(
                cache_key=key, question_id=question_id, table_id=table_id, model_name=spec.name,
                backend=spec.backend, model=spec.model, table_format=table_format, messages=messages, params=params,
                question=question, table_html=side["table_html"], answer_gt=answer_gt))
    return out


def requests_frame(requests: Iterable[PredictionRequest]) -> pd.DataFrame:
    cols = ["cache_key", "question_id", "table_id", "model_name", "backend", "model", "table_format"]
    return pd.DataFrame([[getattr(r, c) for c in cols] for r in requests], columns=cols)
