"""Prediction requests for one model: which questions, which table rendering, which messages."""
from __future__ import annotations

from typing import Iterable

import pandas as pd

from .backends.base import PredictionRequest, make_cache_key
from .backends.params import resolve_params
from .model_specs import ModelSpec
from .prompts import build_messages

RENDERING_COLUMN = {"html": "html", "csv": "csv", "markdown": "markdown"}


def select_questions(spec: ModelSpec, questions: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The model's questions: its sources, then a seeded sample stable across runs and scales."""
    from generator_py.rng import stable_int

    q = questions
    if spec.sources:
        q = q[q["source"].isin(spec.sources)]
    if spec.sample is not None and len(q) > spec.sample:
        order = q["question_id"].map(lambda qid: stable_int(seed, spec.name, qid))
        q = q.assign(_order=order).sort_values("_order").head(spec.sample).drop(columns="_order")
    return q.sort_values(["table_id", "question_id"])


def build_requests(spec: ModelSpec, questions: pd.DataFrame, tables: pd.DataFrame, seed: int) -> list[PredictionRequest]:
    chosen = select_questions(spec, questions, seed)
    tables = tables.set_index("table_id")
    params = resolve_params(spec.params) if spec.backend in ("openai", "vllm") else dict(spec.params)
    out = []
    for table_format in spec.formats:
        column = RENDERING_COLUMN[table_format]
        for row in chosen.itertuples(index=False):
            table_text = tables.at[row.table_id, column]
            messages = build_messages(table_text, table_format, row.question, system_role=spec.system_role)
            key = make_cache_key(spec.name, spec.backend, spec.model, params, messages)
            out.append(PredictionRequest(
                cache_key=key, question_id=row.question_id, table_id=row.table_id, model_name=spec.name,
                backend=spec.backend, model=spec.model, table_format=table_format, messages=messages, params=params,
                question=row.question, table_html=tables.at[row.table_id, "html"], answer_gt=row.answer_gt))
    return out


def requests_frame(requests: Iterable[PredictionRequest]) -> pd.DataFrame:
    cols = ["cache_key", "question_id", "table_id", "model_name", "backend", "model", "table_format"]
    return pd.DataFrame([[getattr(r, c) for c in cols] for r in requests], columns=cols)
