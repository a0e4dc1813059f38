"""Answers to the choice requests, scored both ways: one row per model x item x option order.

Requests are answered through the predictions cache like every other (`predict.predict`: a rerun
sends nothing already answered). A request without an answer keeps its row (`answered` false, its
last error in `error_kind`) so that no accuracy silently drops it.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..backends import base
from ..configuration.model_specs import ModelSpec
from ..running.predictions import predict
from ..running.results import ResultsIndex
from ..running.store import PredictionStore
from .letters import letter_from_text, letter_probs
from .requests import build_choice_requests, choice_spec

# Item columns carried onto each prediction (the summaries group by them).
ITEM_CARRIED = ("subset", "distractor_strategy", "content_variant", "option_form", "table_id", "source_question_id",
                "target_row", "target_col")
CHOICE_PREDICTION_COLUMNS = [
    "cache_key", "request_id", "item_id", *ITEM_CARRIED, "model_name", "backend", "model", "option_order",
    "right_letter", "example_item_id", "prompt_version", "answered", "error_kind", "response", "text_letter",
    "text_correct", "logprobs_status", "p_a", "p_b", "logprob_letter", "logprob_correct", "p_right",
    "attempts", "latency_s", "prompt_tokens", "completion_tokens", "logprobs_json", "this_build",
]


def logprobs_status(backend: str, requested: bool, answered: bool, logprobs_json) -> str:
    if not answered:
        return "unanswered"
    if "logprobs" not in base.backend_class(backend).capabilities:
        return "backend_without_logprobs"
    if not requested:
        return "not_requested"
    if not isinstance(logprobs_json, str):
        return "no_logprobs_returned"
    return letter_probs(logprobs_json).status


def choice_predictions(specs: list[ModelSpec], items: pd.DataFrame, tables: pd.DataFrame, seed: int,
                       store_path: str | Path, progress: bool = True, details=None) -> pd.DataFrame:
    """Ask every model with `choice_items` its items in both orders; both scorings per answer (`details`:
    see :func:`evaluation_py.choice.requests.build_choice_requests`)."""
    import evaluation_py.backends  # noqa: F401  (fills the backend registry)

    creqs, lookup = build_choice_requests(specs, items, tables, seed, details)
    if not creqs:
        return _frame([])
    by_name = {s.name: s for s in specs}
    run_specs = [choice_spec(by_name[n]) for n in dict.fromkeys(c.request.model_name for c in creqs)]
    answers = predict(run_specs, [c.request for c in creqs], set(), store_path, progress=progress, benchmark=lookup)
    answer_of = {r["cache_key"]: r for r in answers.to_dict("records")}
    with PredictionStore(store_path) as store:
        errors = store.errors()
    error_of = dict(zip(errors["cache_key"], errors["error_kind"]))
    if "option_form" not in items.columns:  # items of a build before statement options: all answers
        items = items.assign(option_form="answer")
    asked = items[items["item_id"].isin({c.item_id for c in creqs})]  # the rows carry the asked items' columns only
    item_of = {r["item_id"]: r for r in asked[["item_id", *ITEM_CARRIED]].to_dict("records")}
    rows = []
    for c in creqs:
        r = c.request
        got = answer_of.get(r.cache_key)
        answered = got is not None and got["response"] is not None
        response = got["response"] if answered else None
        lp_json = got["logprobs_json"] if answered else None
        status = logprobs_status(r.backend, c.logprobs_requested, answered, lp_json)
        text_letter = letter_from_text(response) if answered else None
        p_a = p_b = logprob_letter = p_right = None
        if status == "scored":
            probs = letter_probs(lp_json)
            p_a, p_b, logprob_letter = probs.p_a, probs.p_b, probs.choice
            p_right = (p_a if c.right_letter == "A" else p_b) / (p_a + p_b)
        rows.append({
            "cache_key": r.cache_key, "request_id": r.question_id, "item_id": c.item_id,
            **{k: item_of[c.item_id][k] for k in ITEM_CARRIED},
            "model_name": r.model_name, "backend": r.backend, "model": r.model, "option_order": c.order,
            "right_letter": c.right_letter, "example_item_id": c.example_item_id, "prompt_version": r.prompt_version,
            "answered": answered, "error_kind": None if answered else error_of.get(r.cache_key, "unanswered"),
            "response": response, "text_letter": text_letter,
            "text_correct": (text_letter == c.right_letter) if answered else None,
            "logprobs_status": status, "p_a": p_a, "p_b": p_b, "logprob_letter": logprob_letter,
            "logprob_correct": (logprob_letter == c.right_letter) if status == "scored" else None,
            "p_right": p_right,
            "attempts": got["attempts"] if got is not None else None,
            "latency_s": got["latency_s"] if got is not None else None,
            "prompt_tokens": got["prompt_tokens"] if got is not None else None,
            "completion_tokens": got["completion_tokens"] if got is not None else None,
            "logprobs_json": lp_json, "this_build": True,
        })
    return _frame(rows)


def with_earlier_builds(this_build: pd.DataFrame, specs: list[ModelSpec], fingerprint: str, store_path: str | Path,
                        accumulate: bool = True, remove: list[str] = ()) -> pd.DataFrame:
    """This build's rows, recorded as its models' results on `fingerprint`, and (with `accumulate`) the
    recorded rows of every other model asked the items on this fingerprint by an earlier build.

    The models of `remove` leave the results first; a model this build asks again replaces its rows."""
    asked = [s.name for s in specs if s.choice_items is not None]
    with ResultsIndex(store_path) as index:
        if remove:
            index.remove_models(fingerprint, remove)
        index.record_choice_rows(fingerprint, asked, this_build)
        earlier = [r for r in index.choice_rows(fingerprint) if r["model_name"] not in set(asked)] if accumulate else []
    if not earlier:
        return this_build
    return _frame([*this_build.to_dict("records"), *({**r, "this_build": False} for r in earlier)])


def _frame(rows: list[dict]) -> pd.DataFrame:
    out = pd.DataFrame(rows, columns=CHOICE_PREDICTION_COLUMNS)
    out["answered"] = out["answered"].astype(bool)
    out["this_build"] = out["this_build"].astype(bool)
    for c in ("text_correct", "logprob_correct"):
        out[c] = out[c].astype("boolean")
    for c in ("p_a", "p_b", "p_right", "latency_s"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype("float64")
    for c in ("target_row", "target_col", "attempts", "prompt_tokens", "completion_tokens"):
        out[c] = pd.to_numeric(out[c], errors="coerce").astype("Int64")
    for c in out.columns:
        if out[c].dtype == object:
            out[c] = out[c].astype(object).where(out[c].notna(), None)
    return out.sort_values(["model_name", "item_id", "option_order"]).reset_index(drop=True)
