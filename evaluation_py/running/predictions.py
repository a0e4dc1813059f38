"""The evaluation steps the dbt Python models call: requests, prompts, predictions (scores: evaluation_py.scoring.scores)."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Iterable, Optional

import pandas as pd


from ..backends import base
from ..backends.base import PredictionRequest
from ..backends.benchmark import BenchmarkLookup
from . import interrupt
from .episodes import run_episodes
from .progress import write_line
from .runner import describe
from ..prompting.image_prompts import IMAGE_FORMAT
from ..modes.inference_mode import get_mode
from ..configuration.model_specs import ModelSpec
from .requests import REQUEST_COLUMNS, build_requests
from .store import PredictionStore

# What is known of a request before it is answered, per episode (its first turn).
REQUEST_MODE_COLUMNS = ["inference_mode", "kind", "prompt_version"]
# One row per episode: its final answer. `turn` / `parent_key` are those of the final turn; attempts,
# latency and tokens are summed over the episode's turns (single-turn: the one request's).
PREDICTION_COLUMNS = ["cache_key", "question_id", "model_name", "inference_mode", "kind", "turn", "parent_key",
                      "prompt_version", "response", "attempts", "latency_s", "prompt_tokens", "completion_tokens",
                      "logprobs_json", "run_id"]
_SUMMED = ("attempts", "latency_s", "prompt_tokens", "completion_tokens")


def prompt_id(messages) -> str:
    return hashlib.sha256(json.dumps(list(messages), sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]


def all_requests(specs: list[ModelSpec], questions: pd.DataFrame, tables: pd.DataFrame, seed: int,
                 benchmark: Optional[BenchmarkLookup] = None) -> list[PredictionRequest]:
    out: list[PredictionRequest] = []
    for spec in specs:
        out.extend(build_requests(spec, questions, tables, seed, benchmark))
    return out


def requests_table(requests: Iterable[PredictionRequest]) -> pd.DataFrame:
    rows = [(*(getattr(r, c) for c in REQUEST_COLUMNS), prompt_id(r.messages), json.dumps(r.params, sort_keys=True))
            for r in requests]
    return pd.DataFrame(rows, columns=[*REQUEST_COLUMNS, "prompt_id", "params_json"]).drop_duplicates("cache_key")


def prompts_table(requests: Iterable[PredictionRequest]) -> pd.DataFrame:
    rows = {}
    for r in requests:
        pid = prompt_id(r.messages)
        if pid not in rows:
            system_role = r.messages[0]["role"] == "system"
            rows[pid] = (pid, r.question_id, r.table_id, r.table_format, system_role, r.prompt_version,
                         json.dumps(list(r.messages), ensure_ascii=False))
    return pd.DataFrame(list(rows.values()), columns=["prompt_id", "question_id", "table_id", "table_format",
                                                      "system_role", "prompt_version", "messages_json"])


def check_capabilities(requests: Iterable[PredictionRequest]) -> None:
    """Fail, before anything is sent, on a request whose inference mode needs what its backend lacks."""
    requests = list(requests)
    seen = set()
    for r in requests:
        if (r.model_name, r.inference_mode) in seen:
            continue
        seen.add((r.model_name, r.inference_mode))
        lacking = sorted(get_mode(r.inference_mode).required_capabilities() - base.backend_class(r.backend).capabilities)
        if lacking:
            raise ValueError(f"eval_models entry {r.model_name!r}: inference mode {r.inference_mode!r} needs capability "
                             f"{', '.join(map(repr, lacking))}, which backend {r.backend!r} lacks; nothing was sent")
    check_image_capability(requests)


def check_image_capability(requests: Iterable[PredictionRequest]) -> None:
    """Fail, before anything is sent, on an image request to a backend that cannot be shown images."""
    for r in requests:
        if r.table_format == IMAGE_FORMAT and "images" not in base.backend_class(r.backend).capabilities:
            raise ValueError(f"eval_models entry {r.model_name!r}: model {r.model!r} (backend {r.backend!r}) cannot be "
                             f"shown images (capability 'images'), but question {r.question_id!r} is asked on the "
                             "table's image; nothing was sent")


def _is_episode(inference_mode: str) -> bool:
    return get_mode(inference_mode).multi_turn


def open_requests(store: PredictionStore, requests: list[PredictionRequest]) -> list[PredictionRequest]:
    """The first turns among `requests` whose episode the store has not finished."""
    single = [r.cache_key for r in requests if not _is_episode(r.inference_mode)]
    multi = [r.cache_key for r in requests if _is_episode(r.inference_mode)]
    done = (store.answered_keys(single) if single else set()) | (set(store.episodes(multi)) if multi else set())
    return [r for r in requests if r.cache_key not in done]


def answered_request_keys(requests: pd.DataFrame, store_path: str | Path) -> set[str]:
    """Keys of `requests` (eval_requests rows) whose episode the store has finished."""
    if len(requests) == 0:
        return set()
    episode = requests["inference_mode"].map(_is_episode).astype(bool)
    single, multi = requests.loc[~episode, "cache_key"].tolist(), requests.loc[episode, "cache_key"].tolist()
    with PredictionStore(store_path) as store:
        return (store.answered_keys(single) if single else set()) | (set(store.episodes(multi)) if multi else set())


@interrupt.stoppable
def predict(specs: list[ModelSpec], requests: list[PredictionRequest], skip_keys: set[str], store_path: str | Path,
            progress: bool = True, benchmark: Optional[BenchmarkLookup] = None) -> pd.DataFrame:
    """Answer every episode whose first turn's key is not in `skip_keys`; the store makes reruns and
    resumes free. `benchmark` is what backends reading the benchmark (oracle, header_match) answer from.

    A request needing a capability its backend lacks fails here, before any backend is started.
    With `progress`, each model and kind ends with one line (sent, cached, failed), a model whose
    answers are all in the store too.
    """
    todo = [r for r in requests if r.cache_key not in skip_keys]
    check_capabilities(todo)
    check_sandboxes(specs, todo)
    spec_of = {s.name: s for s in specs}
    runner = None
    with PredictionStore(store_path) as store:
        try:
            for spec in specs:
                asked = [r for r in todo if r.model_name == spec.name]
                mine = open_requests(store, asked)
                if not mine:  # everything cached: the backend (a server, a GPU engine) is never started
                    if progress and asked:
                        _cached_line(describe(asked, spec.backend), len({r.cache_key for r in asked}))
                    continue
                if runner is None and any(get_mode(r.inference_mode).runs_code for r in mine):
                    runner = _code_runner(store_path, benchmark)
                backend = base.get_backend(spec.backend, spec.backend_config, benchmark)
                try:
                    finished = len({r.cache_key for r in asked}) - len({r.cache_key for r in mine})
                    run_episodes(mine, backend, store, progress=progress, specs=spec_of, code_runner=runner,
                                 finished=finished)
                finally:
                    backend.close()
        finally:
            if runner is not None:
                runner.close()
        return final_answers(store, requests_table(todo)) if todo else _prediction_frame(None)


def _cached_line(desc: str, n: int) -> None:
    write_line(f"{desc}: sent 0, cached {n}, failed 0")


def check_sandboxes(specs: list[ModelSpec], requests: Iterable[PredictionRequest]) -> None:
    """Refuse, before anything is sent, an entry whose modes run code in a sandbox that cannot run here
    (bubblewrap missing: the message says how to install it, or to opt into `sandbox: rlimits`)."""
    from ..modes.execution import require_sandbox

    coding = {(r.model_name, r.inference_mode) for r in requests if get_mode(r.inference_mode).runs_code}
    for spec in specs:
        modes = sorted(m for name, m in coding if name == spec.name)
        if modes:
            require_sandbox(spec.sandbox, f"eval_models entry {spec.name!r} (modes {', '.join(modes)}; nothing was sent)")


def _code_runner(store_path, benchmark: Optional[BenchmarkLookup]):
    from ..modes.execution import CodeRunner

    if benchmark is None:
        raise ValueError("inference modes that run code need the benchmark's tables (predict(..., benchmark=...))")
    return CodeRunner(store_path, benchmark.table_texts)


@interrupt.stoppable
def predict_pending(requests: pd.DataFrame, skip_keys: set[str], store_path: str | Path,
                    make_inputs: Callable[[], tuple[list[ModelSpec], list[PredictionRequest], BenchmarkLookup]],
                    progress: bool = True) -> pd.DataFrame:
    """`predict` for a build whose requests are known as rows of eval_requests (`cache_key` and
    `REQUEST_MODE_COLUMNS`; with `model_name`, `backend` and `this_build`, the end lines of a build
    that sends nothing name this build's models).

    The full requests (`make_inputs()`: specs, requests with prompts rendered, benchmark lookup) are
    built only when the store lacks a finished episode for some key not in `skip_keys`; otherwise the
    answers come from the store directly, as `predict` would return them, and nothing is rendered or sent.
    """
    todo = requests[~requests["cache_key"].isin(skip_keys)].drop_duplicates("cache_key")
    if len(todo) == 0:
        return _prediction_frame(None)
    with PredictionStore(store_path) as store:
        episode = todo["inference_mode"].map(_is_episode).astype(bool)
        single, multi = todo.loc[~episode, "cache_key"].tolist(), todo.loc[episode, "cache_key"].tolist()
        finished = (len(store.answered_keys(single)) if single else 0) + (len(store.episodes(multi)) if multi else 0)
        if finished == len(todo):
            if progress and {"model_name", "backend", "this_build"} <= set(todo.columns):
                mine = todo[todo["this_build"].astype(bool)]
                for (name, backend, kind), group in mine.groupby(["model_name", "backend", "kind"], sort=True):
                    _cached_line(f"{name} ({kind}, {backend})", len(group))
            return final_answers(store, todo)
    specs, built, benchmark = make_inputs()
    predict(specs, built, skip_keys, store_path, progress=progress, benchmark=benchmark)
    # every row's answer, those of models this build did not list (the accumulated ones) included
    with PredictionStore(store_path) as store:
        return final_answers(store, todo)


def final_answers(store: PredictionStore, requests: pd.DataFrame) -> pd.DataFrame:
    """One row per request of `requests` (eval_requests rows) that the store has a final answer for."""
    requests = requests.drop_duplicates("cache_key")
    episode = requests["inference_mode"].map(_is_episode).astype(bool)
    frames = []
    single = requests.loc[~episode, "cache_key"].tolist()
    if single:
        got = store.get(single)
        frames.append(got.assign(turn=0, parent_key=None))
    multi = requests.loc[episode, "cache_key"].tolist()
    if multi:
        frames.append(_episode_answers(store, store.episodes(multi)))
    answered = pd.concat([f for f in frames if len(f)], ignore_index=True) if any(len(f) for f in frames) else None
    if answered is None:
        return _prediction_frame(None)
    answered = answered.merge(requests[["cache_key", *REQUEST_MODE_COLUMNS]], on="cache_key", how="left")
    runs = store.run_ids(answered["cache_key"])
    answered["run_id"] = answered["cache_key"].map(runs).astype(object)
    return _prediction_frame(answered.sort_values("cache_key"))


def _episode_answers(store: PredictionStore, episodes: dict[str, dict]) -> pd.DataFrame:
    if not episodes:
        return pd.DataFrame()
    turns = store.get([k for e in episodes.values() for k in e["turn_keys"]])
    by_key = {row["cache_key"]: row for row in turns.to_dict("records")}
    rows = []
    for episode_key, e in episodes.items():
        keys = e["turn_keys"]
        row = dict(by_key[keys[-1]])
        for c in _SUMMED:
            values = [by_key[k][c] for k in keys if not pd.isna(by_key[k][c])]
            row[c] = sum(values) if values else None
        row.update(cache_key=episode_key, turn=len(keys) - 1, parent_key=keys[-2] if len(keys) > 1 else None)
        rows.append(row)
    out = pd.DataFrame(rows)
    for c in ("prompt_tokens", "completion_tokens", "attempts"):
        out[c] = out[c].astype("Int64")
    return out


def _prediction_frame(answered: pd.DataFrame | None) -> pd.DataFrame:
    if answered is None or len(answered) == 0:
        return pd.DataFrame({c: pd.Series(dtype="object") for c in PREDICTION_COLUMNS})
    out = answered[[c for c in PREDICTION_COLUMNS if c in answered.columns]].reset_index(drop=True)
    out["turn"] = out["turn"].astype("int64")
    out["parent_key"] = out["parent_key"].astype(object).where(out["parent_key"].notna(), None)
    if "run_id" in out.columns:
        out["run_id"] = out["run_id"].astype(object).where(out["run_id"].notna(), None)
    return out


def turns_table(requests: pd.DataFrame, store_path: str | Path) -> pd.DataFrame:
    """One row per turn of the finished multi-turn episodes among `requests` (eval_requests rows):
    the user message that turn added (NULL for the first turn: its prompt is in eval_prompts) and
    the model's reply. Single-turn requests have no rows here: their one turn is their prediction."""
    columns = ["episode_key", "turn", "cache_key", "parent_key", "question_id", "model_name", "inference_mode",
               "user_message", "response"]
    requests = requests.drop_duplicates("cache_key")
    multi = requests.loc[requests["inference_mode"].map(_is_episode).astype(bool), "cache_key"].tolist()
    empty = pd.DataFrame({c: pd.Series(dtype="int64" if c == "turn" else "string") for c in columns})
    if not multi:
        return empty
    with PredictionStore(store_path) as store:
        episodes = store.episodes(multi)
    if not episodes:
        return empty  # typed: an untyped empty column would be NULL-typed in DuckDB
    rows = []
    for episode_key, e in sorted(episodes.items()):
        transcript, keys = e["transcript"], e["turn_keys"]
        # The transcript alternates after the first turn's prompt: reply, follow-up, reply, ...
        replies = [m["content"] for m in transcript if m["role"] == "assistant"][-len(keys):]
        n_prompt = len(transcript) - (2 * len(keys) - 1)
        follow_ups = [None] + [transcript[n_prompt + 2 * t - 1]["content"] for t in range(1, len(keys))]
        for t, key in enumerate(keys):
            rows.append((episode_key, t, key, keys[t - 1] if t else None, e["question_id"], e["model_name"],
                         e["inference_mode"], follow_ups[t], replies[t]))
    out = pd.DataFrame(rows, columns=columns)
    out["turn"] = out["turn"].astype("int64")
    for c in ("parent_key", "user_message"):  # None, not NaN, where a first turn has none
        out[c] = out[c].astype(object).where(out[c].notna(), None)
    return out


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
