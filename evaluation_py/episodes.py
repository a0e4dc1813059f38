"""Episodes: a request's turns, run through a backend into the store turn by turn, resumably.

A single-turn mode's episode is its one request (`run_predictions`). A multi-turn mode's episode
goes on while its mode's `next_message` gives a follow-up and `max_turns` allows: every turn is a
request of its own, cached under its own key (the conversation so far, chained to the previous
turn's key), so a rerun sends nothing and a run killed mid-episode resumes at the first turn the
store has no answer for. A finished episode is recorded with its turn keys and transcript
(`PredictionStore.put_episode`); a turn that failed leaves its episode open until a later run.
"""
from __future__ import annotations

from typing import Any, Iterable

from .backends.base import Backend, PredictionRequest
from .inference_modes import get_mode
from .requests import next_turn
from .runner import run_predictions
from .store import PredictionStore

_COUNTS = ("requested", "unique", "cached", "sent", "answered", "errors")


def run_episodes(requests: Iterable[PredictionRequest], backend: Backend, store: PredictionStore,
                 progress: bool = True, **runner_options: Any) -> dict[str, Any]:
    """Answer the episodes that start with `requests` (first turns); returns counts summed over turns,
    plus `turns` (rounds sent) and `episodes_finished` (multi-turn episodes recorded this run)."""
    frontier = list(requests)
    episode_of = {r.cache_key: r for r in frontier}  # a turn's key -> its episode's first turn
    keys_of: dict[str, list[str]] = {r.cache_key: [r.cache_key] for r in frontier}
    totals: dict[str, Any] = {k: 0 for k in _COUNTS}
    totals.update(errors_by_kind={}, elapsed_s=0.0, turns=0, episodes_finished=0)
    while frontier:
        stats = run_predictions(frontier, backend, store, progress=progress, **runner_options)
        totals["turns"] += 1
        for k in _COUNTS:
            totals[k] += stats[k]
        totals["elapsed_s"] += stats["elapsed_s"]
        for kind, n in stats["errors_by_kind"].items():
            totals["errors_by_kind"][kind] = totals["errors_by_kind"].get(kind, 0) + n
        frontier = _next_turns([r for r in frontier if get_mode(r.inference_mode).multi_turn], store,
                               episode_of, keys_of, totals)
    return totals


def _next_turns(turns: list[PredictionRequest], store: PredictionStore, episode_of: dict, keys_of: dict,
                totals: dict) -> list[PredictionRequest]:
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
        follow = mode.next_message(transcript) if r.turn + 1 < mode.max_turns else None
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
