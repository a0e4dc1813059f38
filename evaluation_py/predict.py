"""The evaluation steps the dbt Python models call: requests, prompts, predictions (scores: evaluation_py.scoring)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from .backends import base
from .backends.base import PredictionRequest
from .model_specs import ModelSpec
from .prompts import PROMPT_VERSION
from .requests import build_requests
from .runner import run_predictions
from .store import PredictionStore

PREDICTION_COLUMNS = ["cache_key", "question_id", "model_name", "response", "attempts", "latency_s",
                      "prompt_tokens", "completion_tokens", "logprobs_json"]


def prompt_id(messages) -> str:
    return hashlib.sha256(json.dumps(list(messages), sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]


def all_requests(specs: list[ModelSpec], questions: pd.DataFrame, tables: pd.DataFrame, seed: int) -> list[PredictionRequest]:
    out: list[PredictionRequest] = []
    for spec in specs:
        out.extend(build_requests(spec, questions, tables, seed))
    return out


def requests_table(requests: Iterable[PredictionRequest]) -> pd.DataFrame:
    rows = [(r.cache_key, r.question_id, r.table_id, r.model_name, r.backend, r.model, r.table_format,
             prompt_id(r.messages), json.dumps(r.params, sort_keys=True)) for r in requests]
    return pd.DataFrame(rows, columns=["cache_key", "question_id", "table_id", "model_name", "backend", "model",
                                       "table_format", "prompt_id", "params_json"]).drop_duplicates("cache_key")


def prompts_table(requests: Iterable[PredictionRequest]) -> pd.DataFrame:
    rows = {}
    for r in requests:
        pid = prompt_id(r.messages)
        if pid not in rows:
            system_role = r.messages[0]["role"] == "system"
            rows[pid] = (pid, r.question_id, r.table_id, r.table_format, system_role, PROMPT_VERSION,
                         json.dumps(list(r.messages), ensure_ascii=False))
    return pd.DataFrame(list(rows.values()), columns=["prompt_id", "question_id", "table_id", "table_format",
                                                      "system_role", "prompt_version", "messages_json"])


def predict(specs: list[ModelSpec], requests: list[PredictionRequest], skip_keys: set[str], store_path: str | Path,
            progress: bool = True) -> pd.DataFrame:
    """Answer every request whose key is not in `skip_keys`; the store makes reruns and resumes free."""
    todo = [r for r in requests if r.cache_key not in skip_keys]
    with PredictionStore(store_path) as store:
        for spec in specs:
            mine = [r for r in todo if r.model_name == spec.name]
            if not mine or len(store.answered_keys([r.cache_key for r in mine])) == len({r.cache_key for r in mine}):
                continue  # everything cached: the backend (a server, a GPU engine) is never started
            backend = base.get_backend(spec.backend, spec.backend_config)
            try:
                run_predictions(mine, backend, store, progress=progress)
            finally:
                backend.close()
        answered = store.get([r.cache_key for r in todo]) if todo else None
    return _prediction_frame(answered)


def predict_pending(request_keys: Iterable[str], skip_keys: set[str], store_path: str | Path,
                    make_inputs: Callable[[], tuple[list[ModelSpec], list[PredictionRequest]]],
                    progress: bool = True) -> pd.DataFrame:
    """`predict` for a build whose requests are known by key (the eval_requests table).

    The full requests (`make_inputs()`: specs and requests, prompts rendered) are built only when the
    store lacks an answer for some key not in `skip_keys`; otherwise the answers come from the store
    directly, as `predict` would return them, and nothing is rendered or sent.
    """
    todo = [k for k in dict.fromkeys(request_keys) if k not in skip_keys]
    answered = None
    if todo:
        with PredictionStore(store_path) as store:
            if len(store.answered_keys(todo)) < len(todo):
                specs, requests = make_inputs()
            else:
                answered = store.get(todo)
        if answered is None:
            return predict(specs, requests, skip_keys, store_path, progress=progress)
    return _prediction_frame(answered)


def _prediction_frame(answered: pd.DataFrame | None) -> pd.DataFrame:
    if answered is None or len(answered) == 0:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in PREDICTION_COLUMNS})
    return answered[[c for c in PREDICTION_COLUMNS if c in answered.columns]].reset_index(drop=True)


ERROR_COLUMNS = ["cache_key", "question_id", "model_name", "error_kind", "attempts"]


def errors_table(requests: pd.DataFrame, answered_keys: Iterable[str], store_path: str | Path) -> pd.DataFrame:
    """One row per request of this build without an answer: its last error from the store, or
    `unanswered` when the store has none (the answer was dropped, or never came back)."""
    answered = set(answered_keys)
    missing = requests[~requests["cache_key"].isin(answered)].drop_duplicates("cache_key")
    with PredictionStore(store_path) as store:
        errors = store.errors()
    errors = errors[errors["cache_key"].isin(set(missing["cache_key"]))]
    out = missing[["cache_key", "question_id", "model_name"]].merge(
        errors[["cache_key", "error_kind", "attempts"]], on="cache_key", how="left")
    out["error_kind"] = out["error_kind"].astype(object).where(out["error_kind"].notna(), "unanswered")
    out["attempts"] = out["attempts"].astype("Int64")
    return out[ERROR_COLUMNS].sort_values("cache_key").reset_index(drop=True)


def failure_summary(requests: pd.DataFrame, errors: pd.DataFrame) -> str:
    """`N of M requests failed: model 'a' 3 of 40 (timeout 2, http_500 1); ...`, or "" when none failed."""
    if len(errors) == 0:
        return ""
    per_model = requests.drop_duplicates("cache_key").groupby("model_name").size()
    parts = []
    for model_name, group in errors.groupby("model_name", sort=True):
        kinds = group["error_kind"].value_counts()
        kinds = kinds.sort_index().sort_values(ascending=False, kind="stable")
        detail = ", ".join(f"{k} {n}" for k, n in kinds.items())
        parts.append(f"model {model_name!r} {len(group)} of {per_model.get(model_name, 0)} ({detail})")
    total = requests["cache_key"].nunique()
    return (f"{len(errors)} of {total} requests of this build have no answer (they are sent again next build): "
            + "; ".join(parts))
