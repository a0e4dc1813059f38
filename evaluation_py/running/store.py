"""Durable predictions cache: a SQLite file (WAL) keyed by `cache_key`.

Three tables:

- `predictions`: answered requests only (`response` not NULL, `error_kind` NULL), one row per key.
- `errors`: the last failure of requests that are not answered yet (`error_kind`, `attempts` of the
  last run, `failures` = runs that failed, `total_attempts`, and `prompt_tokens` when the backend
  measured the prompt, as for `context_length`). A failed request is therefore never an
  answer: `answered_keys()` leaves it out and the next run sends it again. When it is answered later
  its error row is deleted.
- `episodes`: finished multi-turn episodes (inference modes with more than one turn), keyed by the
  episode's first-turn key: the cache key of every turn in order (`turn_keys_json`; each turn's
  answer is a row of `predictions` under its own key, so a run killed mid-episode resumes at the
  turn that has none) and the whole transcript (`transcript_json`: the last turn's messages and its
  reply). A single-turn request has no episode row: its answer is its episode.

`put_many` writes one transaction (synchronous=FULL: committed means on disk). Several processes may
read while one writes (WAL); writers wait up to `busy_timeout_s` for each other.

Each answer carries a checksum of its key, ids and text: an answer edited inside the file (or written
by an older version, without one) fails it, is dropped with a warning and counts as missing, so it is
asked again. A file that is not a readable SQLite database raises `StoreUnreadable`, naming the file
and the way out.
"""
from __future__ import annotations

import functools
import hashlib
import json
import logging
import sqlite3
import time
from dataclasses import fields
from pathlib import Path
from typing import Iterable, Optional

import pandas as pd

from ..backends.base import Prediction
from generator_py.core import sqlite_gate

PREDICTION_COLUMNS = [f.name for f in fields(Prediction)]
_SCHEMA = """
CREATE TABLE IF NOT EXISTS predictions (
    cache_key TEXT PRIMARY KEY,
    question_id TEXT NOT NULL,
    model_name TEXT NOT NULL,
    response TEXT NOT NULL,
    error_kind TEXT,
    attempts INTEGER NOT NULL,
    latency_s REAL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    logprobs_json TEXT,
    created_at REAL NOT NULL,
    checksum TEXT,
    run_id TEXT
);
CREATE TABLE IF NOT EXISTS errors (
    cache_key TEXT PRIMARY KEY,
    question_id TEXT NOT NULL,
    model_name TEXT NOT NULL,
    error_kind TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    latency_s REAL,
    failures INTEGER NOT NULL,
    total_attempts INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    prompt_tokens INTEGER,
    run_id TEXT
);
CREATE TABLE IF NOT EXISTS episodes (
    episode_key TEXT PRIMARY KEY,
    question_id TEXT NOT NULL,
    model_name TEXT NOT NULL,
    inference_mode TEXT NOT NULL,
    n_turns INTEGER NOT NULL,
    turn_keys_json TEXT NOT NULL,
    transcript_json TEXT NOT NULL,
    updated_at REAL NOT NULL
);
"""
_IN_CHUNK = 500  # keys per `IN (...)` query, under SQLite's variable limit

log = logging.getLogger(__name__)


class StoreUnreadable(ValueError):
    """The predictions file is damaged or not a SQLite database."""


def answer_checksum(cache_key: str, question_id: str, model_name: str, response: str,
                    logprobs_json: Optional[str]) -> str:
    payload = json.dumps([cache_key, question_id, model_name, response, logprobs_json], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _named(method):
    """Turn SQLite's "malformed" / "not a database" into an error naming the file and the way out."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (sqlite3.DatabaseError, pd.errors.DatabaseError) as e:
            # Locks, busy timeouts and constraint errors are not damage (they are subclasses): leave them.
            damaged = type(e) is sqlite3.DatabaseError
            if not (damaged or "malformed" in str(e) or "not a database" in str(e)):
                raise
            raise StoreUnreadable(
                f"predictions cache {str(self.path.resolve())!r} is unreadable ({e}): delete it (every answer is asked "
                f"again) or set the var eval_cache_dir to another folder") from None
    return wrapper


def names_damage(cls):
    """Class decorator: every method of a reader of the predictions file (its `path`) reports damage as
    `_named` does."""
    for name, fn in list(vars(cls).items()):
        if callable(fn) and (name == "__init__" or not name.startswith("__")):
            setattr(cls, name, _named(fn))
    return cls


class PredictionStore:
    @_named
    def __init__(self, path: str | Path, busy_timeout_s: float = 60.0, run_id: Optional[str] = None):
        from .runs import current_run_id

        self.path = Path(path)
        self.run_id = run_id or current_run_id()  # stamped on every answer and error written
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite_gate.connect(str(self.path), timeout=busy_timeout_s, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=FULL")
        self._con.executescript(_SCHEMA)
        columns = {row[1] for row in self._con.execute("PRAGMA table_info(predictions)")}
        if "checksum" not in columns:  # a store written before checksums: its answers fail the check
            self._con.execute("ALTER TABLE predictions ADD COLUMN checksum TEXT")
        # Stores written before errors had `prompt_tokens` get the column (NULL for their rows).
        if "prompt_tokens" not in {row[1] for row in self._con.execute("PRAGMA table_info(errors)")}:
            self._con.execute("ALTER TABLE errors ADD COLUMN prompt_tokens INTEGER")
        # Stores written before runs were recorded get `run_id` (NULL for their rows: the run is not known).
        for table in ("predictions", "errors"):
            if "run_id" not in {row[1] for row in self._con.execute(f"PRAGMA table_info({table})")}:
                self._con.execute(f"ALTER TABLE {table} ADD COLUMN run_id TEXT")

    # ------------------------------------------------------------------ writing
    @_named
    def put_many(self, predictions: Iterable[Prediction]) -> tuple[int, int]:
        """Store one chunk in one durable transaction; returns (answers stored, errors recorded).

        An answer replaces an earlier answer under the same key (there is at most one row per key).
        An error never replaces an answer.
        """
        now = time.time()
        answers, errors = [], []
        for p in predictions:
            if p.response is not None:
                answers.append((p.cache_key, p.question_id, p.model_name, p.response, p.attempts, p.latency_s,
                                p.prompt_tokens, p.completion_tokens, p.logprobs_json, now,
                                answer_checksum(p.cache_key, p.question_id, p.model_name, p.response,
                                                p.logprobs_json), self.run_id))
            else:
                errors.append((p.cache_key, p.question_id, p.model_name, p.error_kind or "no_response",
                               p.attempts, p.latency_s, p.attempts, now, p.prompt_tokens, self.run_id))
        if not answers and not errors:
            return 0, 0
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            if answers:
                con.executemany(
                    "INSERT OR REPLACE INTO predictions (cache_key, question_id, model_name, response, error_kind,"
                    " attempts, latency_s, prompt_tokens, completion_tokens, logprobs_json, created_at, checksum, run_id)"
                    " VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)", answers)
                con.executemany("DELETE FROM errors WHERE cache_key = ?", [(a[0],) for a in answers])
            if errors:
                con.executemany(
                    "INSERT INTO errors (cache_key, question_id, model_name, error_kind, attempts, latency_s,"
                    " failures, total_attempts, updated_at, prompt_tokens, run_id)"
                    " SELECT ?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, ?8, ?9, ?10"
                    " WHERE NOT EXISTS (SELECT 1 FROM predictions WHERE cache_key = ?1)"
                    " ON CONFLICT (cache_key) DO UPDATE SET error_kind = excluded.error_kind,"
                    " attempts = excluded.attempts, latency_s = excluded.latency_s,"
                    " failures = errors.failures + 1, total_attempts = errors.total_attempts + excluded.attempts,"
                    " updated_at = excluded.updated_at, prompt_tokens = excluded.prompt_tokens, run_id = excluded.run_id",
                    errors)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return len(answers), len(errors)

    @_named
    def put_episode(self, episode_key: str, question_id: str, model_name: str, inference_mode: str,
                    turn_keys: list[str], transcript: Iterable[dict]) -> None:
        """Record a finished episode (its turns' answers are already stored under their own keys)."""
        self._con.execute(
            "INSERT OR REPLACE INTO episodes (episode_key, question_id, model_name, inference_mode, n_turns,"
            " turn_keys_json, transcript_json, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (episode_key, question_id, model_name, inference_mode, len(turn_keys), json.dumps(list(turn_keys)),
             json.dumps(list(transcript), ensure_ascii=False), time.time()))

    # ------------------------------------------------------------------ reading
    @_named
    def episodes(self, keys: Iterable[str]) -> dict[str, dict]:
        """Finished episodes among `keys` whose every turn still has an answer passing its checksum:
        episode_key -> {question_id, model_name, inference_mode, turn_keys, transcript}."""
        rows = []
        for chunk in _chunks(list(dict.fromkeys(keys)), _IN_CHUNK):
            rows += self._con.execute(
                "SELECT episode_key, question_id, model_name, inference_mode, turn_keys_json, transcript_json"
                f" FROM episodes WHERE episode_key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        episodes = {r[0]: {"question_id": r[1], "model_name": r[2], "inference_mode": r[3],
                           "turn_keys": json.loads(r[4]), "transcript": json.loads(r[5])} for r in rows}
        answered = self.answered_keys([k for e in episodes.values() for k in e["turn_keys"]]) if episodes else set()
        # An episode one of whose answers was dropped is not finished: the next run asks that turn again.
        return {k: e for k, e in episodes.items() if all(t in answered for t in e["turn_keys"])}

    @_named
    def answered_keys(self, keys: Optional[Iterable[str]] = None) -> set[str]:
        """Keys that have an answer passing its checksum (all of them, or those among `keys`)."""
        self._drop_failing(keys)
        if keys is None:
            return {k for (k,) in self._con.execute("SELECT cache_key FROM predictions")}
        out: set[str] = set()
        for chunk in _chunks(list(dict.fromkeys(keys)), _IN_CHUNK):
            q = f"SELECT cache_key FROM predictions WHERE cache_key IN ({','.join('?' * len(chunk))})"
            out.update(k for (k,) in self._con.execute(q, chunk))
        return out

    @_named
    def get(self, keys: Iterable[str], include_errors: bool = False) -> pd.DataFrame:
        """Predictions of `keys` (columns: the Prediction fields); errors too when asked."""
        keys = list(dict.fromkeys(keys))
        self._drop_failing(keys)
        frames = []
        for chunk in _chunks(keys, _IN_CHUNK):
            where = f"WHERE cache_key IN ({','.join('?' * len(chunk))})"
            frames.append(self._query(where, chunk, include_errors))
        if not frames:
            return self._query("WHERE 0", [], include_errors)
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]

    @_named
    def all(self, include_errors: bool = False) -> pd.DataFrame:
        self._drop_failing(None)
        return self._query("", [], include_errors)

    @_named
    def errors(self) -> pd.DataFrame:
        """Unanswered requests with their last error: Prediction fields plus failures, total_attempts."""
        return self._con.read_frame(
            "SELECT cache_key, question_id, model_name, NULL AS response, error_kind, attempts, latency_s,"
            " prompt_tokens, NULL AS completion_tokens, NULL AS logprobs_json, failures, total_attempts"
            " FROM errors ORDER BY cache_key")

    @_named
    def run_ids(self, keys: Iterable[str]) -> dict[str, Optional[str]]:
        """cache_key -> the run that wrote its answer (None for answers written before runs were recorded)."""
        out: dict[str, Optional[str]] = {}
        for chunk in _chunks(list(dict.fromkeys(keys)), _IN_CHUNK):
            q = f"SELECT cache_key, run_id FROM predictions WHERE cache_key IN ({','.join('?' * len(chunk))})"
            out.update(self._con.execute(q, chunk).fetchall())
        return out

    @_named
    def counts(self) -> dict[str, int]:
        (a,) = self._con.execute("SELECT count(*) FROM predictions").fetchone()
        (e,) = self._con.execute("SELECT count(*) FROM errors").fetchone()
        return {"answered": a, "errors": e}

    def _drop_failing(self, keys: Optional[Iterable[str]]) -> int:
        """Delete answers (all, or among `keys`) whose checksum fails, so they count as missing."""
        sql = "SELECT cache_key, question_id, model_name, response, logprobs_json, checksum FROM predictions"
        if keys is None:
            rows = self._con.execute(sql).fetchall()
        else:
            rows = []
            for chunk in _chunks(list(dict.fromkeys(keys)), _IN_CHUNK):
                rows += self._con.execute(f"{sql} WHERE cache_key IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        bad = [r[0] for r in rows if r[5] != answer_checksum(*r[:5])]
        if bad:
            log.warning("predictions cache %s: %d stored answer(s) fail their checksum (edited, damaged or "
                        "written before checksums), e.g. key %s; they are dropped and asked again",
                        self.path.resolve(), len(bad), bad[0])
            self._con.execute("BEGIN IMMEDIATE")
            try:
                self._con.executemany("DELETE FROM predictions WHERE cache_key = ?", [(k,) for k in bad])
                self._con.execute("COMMIT")
            except BaseException:
                self._con.execute("ROLLBACK")
                raise
        return len(bad)

    def _query(self, where: str, args: list, include_errors: bool) -> pd.DataFrame:
        cols = ", ".join(PREDICTION_COLUMNS)
        sql = f"SELECT {cols} FROM predictions {where}"
        if include_errors:
            sql += (" UNION ALL SELECT cache_key, question_id, model_name, NULL, error_kind, attempts, latency_s,"
                    f" prompt_tokens, NULL, NULL FROM errors {where}")
            args = list(args) * 2
        df = self._con.read_frame(sql + " ORDER BY cache_key", params=args)
        for c in ("prompt_tokens", "completion_tokens", "attempts"):
            df[c] = df[c].astype("Int64")
        for c in ("response", "error_kind", "logprobs_json"):
            df[c] = df[c].astype(object).where(df[c].notna(), None)
        return df

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> "PredictionStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _chunks(items: list, n: int) -> Iterable[list]:
    for i in range(0, len(items), n):
        yield items[i:i + n]

