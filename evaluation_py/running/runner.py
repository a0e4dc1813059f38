"""Runs prediction requests through a backend into the store, resumably.

`run_predictions` removes duplicate keys, skips keys the store already answers (a rerun sends nothing),
runs the backend on the rest in a worker thread and persists its results in chunks of `chunk_size`
or every `flush_interval_s` (one second by default), whichever comes first, from the calling thread as
they arrive, so a run killed at any point loses at most the last second of answers; the next run sends
only what is missing.
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Iterable

from . import interrupt
from ..backends.base import Backend, Prediction, PredictionRequest
from .progress import Progress
from .store import PredictionStore

_DONE = object()


class _Failed:
    def __init__(self, exc: BaseException):
        self.exc = exc


def run_predictions(
    requests: Iterable[PredictionRequest],
    backend: Backend,
    store: PredictionStore,
    chunk_size: int = 64,
    progress: bool = True,
    flush_interval_s: float = 1.0,
    end_line: bool = True,
) -> dict[str, Any]:
    """Answer `requests` with `backend` into `store`; returns counts.

    Keys of the result: `requested` (requests given), `unique` (distinct keys), `cached` (already
    answered in the store), `sent` (handed to the backend), `answered`, `errors` (failed this run, kept
    in the store's error table and sent again next run), `errors_by_kind`, `elapsed_s`.
    With `progress`, progress lines while requests are sent and, with `end_line`, one at the end
    (`summary_line`). A stop raises `interrupt.EvaluationInterrupted` carrying these counts so far.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    with interrupt.active():
        return _run(requests, backend, store, chunk_size, progress, flush_interval_s, end_line)


def describe(requests: Iterable[PredictionRequest], backend_name: str) -> str:
    """`model (kind, backend)`: what a progress line and its end line are about."""
    requests = list(requests)
    models = sorted({r.model_name for r in requests})
    kinds = sorted({getattr(r, "kind", "generate") for r in requests})
    return f"{', '.join(models)} ({', '.join(kinds)}, {backend_name or 'backend'})"


def summary_line(desc: str, stats: dict[str, Any]) -> str:
    """The end line of a model and kind: sent (results stored this run), cached, failed, elapsed."""
    return (f"{desc}: sent {stats['answered'] + stats['errors']}, cached {stats['cached']}, "
            f"failed {stats['errors']}, elapsed {stats['elapsed_s']:.1f} s")


def _run(requests, backend: Backend, store: PredictionStore, chunk_size: int, progress: bool,
         flush_interval_s: float, end_line: bool) -> dict[str, Any]:
    t0 = time.monotonic()
    requests = list(requests)
    unique: dict[str, PredictionRequest] = {}
    for r in requests:
        unique.setdefault(r.cache_key, r)
    done_keys = store.answered_keys(unique.keys()) if unique else set()
    todo = [r for k, r in unique.items() if k not in done_keys]
    stats: dict[str, Any] = {
        "requested": len(requests), "unique": len(unique), "cached": len(unique) - len(todo),
        "sent": len(todo), "answered": 0, "errors": 0, "errors_by_kind": {}, "elapsed_s": 0.0,
    }
    if not todo:
        stats["elapsed_s"] = time.monotonic() - t0
        return stats
    if interrupt.stopping():  # stopped before this run began: nothing is sent
        interrupt.count(missing=len(todo))
        raise interrupt.EvaluationInterrupted(interrupt.summary(), stats)

    pending = {r.cache_key: r for r in todo}
    results: "queue.Queue[Any]" = queue.Queue()

    def work() -> None:
        try:
            backend.run(todo, results.put)
        except BaseException as e:  # noqa: BLE001 - handed to the calling thread
            results.put(_Failed(e))
        else:
            results.put(_DONE)

    buffer: list[Prediction] = []
    last_flush = time.monotonic()

    def flush() -> None:
        nonlocal last_flush
        if buffer:
            store.put_many(buffer)
            interrupt.count(answered=sum(p.response is not None for p in buffer))
            for p in buffer:
                if p.response is not None:
                    stats["answered"] += 1
                else:
                    stats["errors"] += 1
                    kind = p.error_kind or "no_response"
                    stats["errors_by_kind"][kind] = stats["errors_by_kind"].get(kind, 0) + 1
            buffer.clear()
        last_flush = time.monotonic()

    desc = describe(todo, backend.name)
    bar = Progress(len(todo), desc=desc, enabled=progress)
    worker = threading.Thread(target=work, name="prediction-backend", daemon=True)
    failure: BaseException | None = None
    stopped = False

    def take(item) -> bool:
        """Keep one result; False when the backend is done or failed."""
        nonlocal failure
        if item is _DONE:
            return False
        if isinstance(item, _Failed):
            failure = item.exc
            return False
        if pending.pop(item.cache_key, None) is None:
            return True  # a key not asked for, or a second result for one: keep the first only
        buffer.append(item)
        bar.update(failed=int(item.response is None))
        if len(buffer) >= chunk_size or time.monotonic() - last_flush >= flush_interval_s:
            flush()
        return True

    try:
        worker.start()
        while True:
            if interrupt.stopping():  # SIGINT / SIGTERM: store what came back, send nothing more
                stopped = True
                while True:  # the results already handed over, not those still on the way
                    try:
                        if not take(results.get_nowait()):
                            break
                    except queue.Empty:
                        break
                break
            # woken at least every 0.2 s, so a stop is seen at once
            wait = min(0.2, max(0.05, flush_interval_s - (time.monotonic() - last_flush)))
            try:
                item = results.get(timeout=wait)
            except queue.Empty:
                if time.monotonic() - last_flush >= flush_interval_s:
                    flush()
                continue
            if not take(item):
                break
        if failure is None and pending and not stopped:
            # The backend finished without answering these: record them so they are visible and retried.
            buffer.extend(
                Prediction(cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                           response=None, error_kind="no_result", attempts=0)
                for r in pending.values()
            )
    finally:
        flush()
        stats["elapsed_s"] = time.monotonic() - t0
        bar.close(final=summary_line(desc, stats), draw=end_line)
    if stopped:
        interrupt.count(missing=len(pending))
        raise interrupt.EvaluationInterrupted(interrupt.summary(), stats)
    if failure is not None:
        raise failure
    worker.join()
    stats["elapsed_s"] = time.monotonic() - t0
    return stats
