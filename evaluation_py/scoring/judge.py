"""LLM-as-judge: a model, configured like a model under test, that says whether each answer is correct.

The dbt var ``judge_model`` is one entry with the keys of an ``eval_models`` entry (``name``,
default ``judge``; ``backend``, any that reads nothing of the benchmark; ``model``, ``params``,
``system_role`` and the backend's own keys); ``formats``, ``sources``, ``sample`` and ``modes``
have no meaning for a judge and are refused. Default null: no judge, ``eval_judgements`` empty.

Every prediction with a response is judged once per distinct (question, ground truth, answer):
its answer is the response through its inference mode's extraction filter, as the metrics read it.
Judge requests go through the same backends, runner and predictions store as the predictions;
their cache keys cover the judge's entry (name, backend, model, params, answer-changing keys),
the messages (so the question, ground truth and answer) and :data:`JUDGE_PROMPT_VERSION`, plus
the role ``judge``: a rerun sends nothing, and another judge, wording or answer is asked anew.

A judgement is a verdict (:func:`evaluation_py.prompting.judge_prompt.parse_verdict`: ``judge_score`` in
[0, 1], ``judge_correct``) or an error (``error_kind``: ``unparsable_verdict`` with the reason in
``error_message``, or the request's own failure, e.g. ``timeout``; a failed request is asked again
next build, an unparsable reply is not: the reply is cached and would be the same). Only verdicts
become the ``judge`` metric of ``eval_scores`` (:func:`verdicts`). No dbt imports.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pandas as pd

from ..backends import base
from ..backends.base import PredictionRequest, make_cache_key
from ..backends.params import resolve_params
from ..running import interrupt
from ..running.episodes import run_episodes
from ..prompting.judge_prompt import JUDGE_PROMPT_VERSION, VerdictError, build_messages, parse_verdict
from ..configuration.model_specs import ModelSpec, parse_eval_models
from ..configuration.redaction import redact_entry, scrub
from ..modes.outcomes import answers_for_scoring
from .scores import extract_answers
from ..running.store import PredictionStore

JUDGE_METRIC = "judge"
DEFAULT_JUDGE_NAME = "judge"
NOT_FOR_A_JUDGE = ("formats", "sources", "sample", "modes", "splits", "shots")
UNPARSABLE = "unparsable_verdict"

JUDGEMENT_COLUMNS = ["cache_key", "question_id", "model_name", "inference_mode", "judge_key", "judge_name",
                     "judge_backend", "judge_model", "judge_prompt_version", "judge_response", "judge_score",
                     "judge_correct", "error_kind", "error_message"]
_DTYPES = {"judge_score": "float64", "judge_correct": "boolean"}

log = logging.getLogger(__name__)


def parse_judge_model(raw: Any) -> ModelSpec | None:
    """The judge of var ``judge_model`` (None: no judge); a clear error naming the var and key, secrets masked."""
    try:
        return _parse_judge_model(raw)
    except ValueError as e:
        raise ValueError(scrub(str(e), raw)) from None


def _parse_judge_model(raw: Any) -> ModelSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError(f"var judge_model must be one model entry (a mapping with at least backend) or null, "
                         f"got {redact_entry(raw)!r}")
    for key in NOT_FOR_A_JUDGE:
        if key in raw:
            raise ValueError(f"var judge_model: key `{key}` has no meaning for the judge (it judges every "
                             f"prediction of eval_predictions); remove it")
    entry = {"name": DEFAULT_JUDGE_NAME, **raw}
    try:
        (spec,) = parse_eval_models([entry])
    except ValueError as e:
        message = str(e)
        prefix = f"eval_models entry 1 ({redact_entry(entry)!r}): "
        raise ValueError(f"var judge_model: {message[len(prefix):] if message.startswith(prefix) else message}") \
            from None
    reads = [f for f in base.backend_class(spec.backend).benchmark_fields if f != "question_id"]
    if reads:
        raise ValueError(f"var judge_model: backend {spec.backend!r} answers from the benchmark "
                         f"({', '.join(reads)}), not from the judge's prompt: it cannot judge")
    return spec


def judged_predictions(requests: pd.DataFrame, predictions: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """The predictions to judge: every request with a response, its answer extracted, with the question
    and ground truth. ``requests``: eval_requests rows; ``questions``: question_id, question, answer_gt."""
    cols = [c for c in ("cache_key", "question_id", "table_id", "model_name", "inference_mode") if c in requests.columns]
    executed = [c for c in ("execution_answer",) if c in predictions.columns]  # pot: the program's answer
    frame = (requests[cols].drop_duplicates("cache_key")
             .merge(predictions[["cache_key", "response", *executed]], on="cache_key", how="inner")
             .merge(questions[["question_id", "question", "answer_gt"]], on="question_id", how="left"))
    frame = frame[frame["response"].notna()].reset_index(drop=True)
    if "inference_mode" not in frame.columns:
        frame["inference_mode"] = "direct"
    lacking = frame[frame["answer_gt"].isna()]
    if len(lacking):
        raise ValueError(f"judge: question {lacking['question_id'].iloc[0]!r} of prediction "
                         f"{lacking['cache_key'].iloc[0]!r} is not in benchmark_questions")
    frame["answer"] = answers_for_scoring(frame, extract_answers(frame))  # what the metrics read too
    return frame[frame["answer"].notna()].sort_values("cache_key").reset_index(drop=True)


def judge_request(spec: ModelSpec, params: dict, row: dict) -> PredictionRequest:
    messages = build_messages(row["question"], row["answer_gt"], row["answer"], system_role=spec.system_role)
    key = make_cache_key(spec.name, spec.backend, spec.model, params, messages,
                         {"entry": spec.identity, "role": "judge"}, JUDGE_PROMPT_VERSION)
    return PredictionRequest(cache_key=key, question_id=row["question_id"], table_id=row.get("table_id") or "",
                             model_name=spec.name, backend=spec.backend, model=spec.model, table_format="none",
                             messages=messages, params=params, prompt_version=JUDGE_PROMPT_VERSION)


@interrupt.stoppable
def judge(spec: ModelSpec | None, judged: pd.DataFrame, store_path: str | Path, progress: bool = True) -> pd.DataFrame:
    """One judgement per row of ``judged`` (:func:`judged_predictions`), asking the judge only what the
    store lacks; the backend is started only then."""
    if spec is None or len(judged) == 0:
        return empty_judgements()
    params = resolve_params(spec.params) if base.backend_class(spec.backend).speaks_openai else dict(spec.params)
    rows = judged.to_dict("records")
    requests = [judge_request(spec, params, row) for row in rows]
    unique = list({r.cache_key: r for r in requests}.values())
    with PredictionStore(store_path) as store:
        answered = store.answered_keys([r.cache_key for r in unique])
        todo = [r for r in unique if r.cache_key not in answered]
        if todo:
            backend = base.get_backend(spec.backend, spec.backend_config)
            try:
                run_episodes(todo, backend, store, progress=progress)
            finally:
                backend.close()
        keys = [r.cache_key for r in unique]
        answers = store.get(keys)
        reply_of = dict(zip(answers["cache_key"], answers["response"]))
        failures = store.errors()
        failure_of = dict(zip(failures["cache_key"], failures["error_kind"]))
    out = []
    for row, request in zip(rows, requests):
        reply = reply_of.get(request.cache_key)
        score = correct = error_kind = error_message = None
        if reply is None:
            error_kind = failure_of.get(request.cache_key) or "unanswered"
            error_message = f"the judge's request failed ({error_kind}); it is sent again next build"
        else:
            try:
                verdict = parse_verdict(reply)
                score, correct = verdict.score, verdict.correct
            except VerdictError as e:
                error_kind, error_message = UNPARSABLE, str(e)
        out.append((row["cache_key"], row["question_id"], row["model_name"], row["inference_mode"],
                    request.cache_key, spec.name, spec.backend, spec.model, JUDGE_PROMPT_VERSION, reply, score,
                    correct, error_kind, error_message))
    frame = _typed(pd.DataFrame(out, columns=JUDGEMENT_COLUMNS))
    failed = frame["error_kind"].dropna()
    if len(failed):
        kinds = ", ".join(f"{k} {n}" for k, n in failed.value_counts().sort_index().items())
        log.warning("judge %r: %d of %d judgements have no verdict (%s); see eval_judgements.error_message",
                    spec.name, len(failed), len(frame), kinds)
    return frame


def empty_judgements() -> pd.DataFrame:
    return _typed(pd.DataFrame({c: pd.Series([], dtype=object) for c in JUDGEMENT_COLUMNS}))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    for c in JUDGEMENT_COLUMNS:
        frame[c] = frame[c].astype(_DTYPES.get(c, "string"))
    return frame


def judgements_table(requests: pd.DataFrame, predictions: pd.DataFrame, questions: pd.DataFrame, judge_raw: Any,
                     store_path: str | Path, progress: bool = True) -> pd.DataFrame:
    """``eval_judgements``: the judge of var ``judge_model`` over this build's predictions."""
    spec = parse_judge_model(judge_raw)
    if spec is None:
        return empty_judgements()
    return judge(spec, judged_predictions(requests, predictions, questions), store_path, progress)


def verdicts(judgements: pd.DataFrame) -> pd.DataFrame:
    """The judge metric's values for :func:`evaluation_py.scoring.scores.scores_table`: one row per verdict."""
    ok = judgements[judgements["judge_score"].notna()]
    return pd.DataFrame({"cache_key": ok["cache_key"].astype(str).to_numpy(), "metric": JUDGE_METRIC,
                         "value": ok["judge_score"].astype("float64").to_numpy()})
