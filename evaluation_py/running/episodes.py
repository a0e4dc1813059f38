"""Episodes: a request's turns, run through a backend into the store turn by turn, resumably.

A single-turn mode's episode is its one request (`run_predictions`). A multi-turn mode's episode
goes on while its mode's `next_message` gives a follow-up and `max_turns` allows: every turn is a
request of its own, cached under its own key (the conversation so far, chained to the previous
turn's key), so a rerun sends nothing and a run killed mid-episode resumes at the first turn the
store has no answer for. A finished episode is recorded with its turn keys and transcript
(`PredictionStore.put_episode`); a turn that failed leaves its episode open until a later run.

A mode that runs code (icot) gets its follow-up from the sandbox: `code_runner` (a
modes.execution.CodeRunner) runs the episode's blocks in the sandbox of the request's entry
(`specs`, by model name, also give an entry's own `max_turns`).
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from ..backends.base import Backend, PredictionRequest
from ..modes.inference_mode import get_mode
from .requests import next_turn, turn_limit
from .interrupt import EvaluationInterrupted
from .progress import write_line
from .runner import describe, run_predictions, summary_line
from .store import PredictionStore

_COUNTS = ("requested", "unique", "cached", "sent", "answered", "errors")


def run_episodes(requests: Iterable[PredictionRequest], backend: Backend, store: PredictionStore,
                 progress: bool = True, specs: Optional[dict] = None, code_runner: Any = None,
                 finished: int = 0, **runner_options: Any) -> dict[str, Any]:
    """Answer the episodes that start with `requests` (first turns); returns counts summed over turns,
    plus `turns` (rounds sent) and `episodes_finished` (multi-turn episodes recorded this run).
    `finished`: episodes of the same model the caller found in the store already (counted as cached)."""
    frontier = list(requests)
    episode_of = {r.cache_key: r for r in frontier}  # a turn's key -> its episode's first turn
    keys_of: dict[str, list[str]] = {r.cache_key: [r.cache_key] for r in frontier}
    totals: dict[str, Any] = {k: 0 for k in _COUNTS}
    totals["cached"] = finished
    totals.update(errors_by_kind={}, elapsed_s=0.0, turns=0, episodes_finished=0)
    desc = describe(frontier, backend.name)

    def add(stats: dict[str, Any]) -> None:
        for k in _COUNTS:
            totals[k] += stats[k]
        totals["elapsed_s"] += stats["elapsed_s"]
        for kind, n in stats["errors_by_kind"].items():
            totals["errors_by_kind"][kind] = totals["errors_by_kind"].get(kind, 0) + n

    try:
        while frontier:
            try:
                stats = run_predictions(frontier, backend, store, progress=progress, end_line=False,
                                        **runner_options)
            except EvaluationInterrupted as stop:
                if stop.stats is not None:
                    add(stop.stats)
                raise
            totals["turns"] += 1
            add(stats)
            frontier = _next_turns([r for r in frontier if get_mode(r.inference_mode).multi_turn], store,
                                   episode_of, keys_of, totals, specs or {}, code_runner)
    finally:
        if progress and episode_of:  # one line per model and kind, whatever the turns
            write_line(summary_line(desc, totals))
    return totals


def _next_turns(turns: list[PredictionRequest], store: PredictionStore, episode_of: dict, keys_of: dict,
                totals: dict, specs: dict, code_runner: Any) -> list[PredictionRequest]:
    if not turns:
        return []
    answers = store.get([r.cache_key for r in turns])
    reply_of = dict(zip(answers["cache_key"], answers["response"]))
    out, seen = [], set()
    for r in turns:
        reply = reply_of.get(r.cache_key)
        if reply is None or r.cache_key in seen:
            continue  # not answered: the episode stays open and this turn is asked again next run
        seen.add(r.cache_key)
        first = episode_of[r.cache_key]
        mode = get_mode(r.inference_mode)
        transcript = tuple(r.messages) + ({"role": "assistant", "content": reply},)
        spec = specs.get(r.model_name)
        limit = turn_limit(spec, mode) if spec is not None else mode.max_turns
        follow = _follow_up(mode, transcript, r, spec, code_runner) if r.turn + 1 < limit else None
        if follow is None:
            store.put_episode(first.cache_key, first.question_id, first.model_name, first.inference_mode,
                              keys_of[first.cache_key], transcript)
            totals["episodes_finished"] += 1
            continue
        child = next_turn(r, reply, follow)
        episode_of[child.cache_key] = first
        keys_of[first.cache_key] = keys_of[first.cache_key] + [child.cache_key]
        out.append(child)
    return out


def _follow_up(mode, transcript: tuple, request: PredictionRequest, spec, code_runner) -> Optional[str]:
    if not mode.runs_code:
        return mode.next_message(transcript)
    if code_runner is None:
        raise ValueError(f"inference mode {mode.name!r} runs code: run_episodes needs a code_runner")
    sandbox = spec.sandbox if spec is not None else "bubblewrap"
    return mode.next_message(transcript, lambda blocks: code_runner.run(sandbox, request.table_id, blocks, session=True,
                                                                        question_id=request.question_id))
