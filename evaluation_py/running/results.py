"""Which models were evaluated on which benchmark, with which entry, and the runs that did it.

Kept in the prediction store's file (the store is the source of truth), in tables of their own:

- `evaluated_entries`: per benchmark fingerprint x model name, the entry it was last evaluated with
  (secrets redacted) and that entry's digest (what changes its answers; formats, modes, sources,
  sample and variants only add or remove requests, so they are not in it).
- `evaluated_requests`: per fingerprint x model, the eval_requests rows of its latest entry. A build
  evaluating a model with the same digest adds its rows (a row for the same question, format, mode
  and kind replaces the older one); with another digest it replaces all of that model's rows.
- `evaluated_choice_rows`: per fingerprint x model, the eval_choice_predictions rows of the last build
  that asked it the two-option items (a later build asking it again replaces them all).
- `runs`, `run_models`: one row per run (start, end, fingerprint, entries, package versions, git
  commit) and per run x model (requests sent, taken from the store, failed).
- `evaluated_leaderboards`: per fingerprint, the eval_leaderboard rows its last build wrote (one per model x
  format x mode x scoring mode x metric; a later build replaces the rows it writes): how the builds of one
  configuration under several seeds, each in its own database, find each other's results
  (analysis_seed_variance).

The marts read these to show every model evaluated on this fingerprint so far; other fingerprints
stay here untouched. `remove_models` is the only way results leave the marts.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Iterable, Optional

import pandas as pd

from ..configuration.model_specs import ModelSpec
from .store import names_damage
from generator_py.core import sqlite_gate

_SCHEMA = """
CREATE TABLE IF NOT EXISTS evaluated_entries (
    fingerprint TEXT NOT NULL,
    model_name TEXT NOT NULL,
    entry_digest TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    run_id TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (fingerprint, model_name)
);
CREATE TABLE IF NOT EXISTS evaluated_requests (
    fingerprint TEXT NOT NULL,
    model_name TEXT NOT NULL,
    slot TEXT NOT NULL,
    cache_key TEXT NOT NULL,
    row_json TEXT NOT NULL,
    PRIMARY KEY (fingerprint, model_name, slot)
);
CREATE TABLE IF NOT EXISTS evaluated_choice_rows (
    fingerprint TEXT NOT NULL,
    model_name TEXT NOT NULL,
    cache_key TEXT NOT NULL,
    row_json TEXT NOT NULL,
    PRIMARY KEY (fingerprint, model_name, cache_key)
);
CREATE TABLE IF NOT EXISTS evaluated_leaderboards (
    fingerprint TEXT NOT NULL,
    model_name TEXT NOT NULL,
    slot TEXT NOT NULL,
    row_json TEXT NOT NULL,
    run_id TEXT NOT NULL,
    PRIMARY KEY (fingerprint, model_name, slot)
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    started_at REAL NOT NULL,
    ended_at REAL,
    fingerprint TEXT NOT NULL,
    entries_json TEXT NOT NULL,
    versions_json TEXT NOT NULL,
    git_commit TEXT
);
CREATE TABLE IF NOT EXISTS run_models (
    run_id TEXT NOT NULL,
    model_name TEXT NOT NULL,
    requests_sent INTEGER NOT NULL,
    requests_cached INTEGER NOT NULL,
    requests_failed INTEGER NOT NULL,
    PRIMARY KEY (run_id, model_name)
);
"""
# What one request row stands for, whatever the prompt version or entry: a newer row for it replaces the older.
SLOT_COLUMNS = ("question_id", "table_format", "inference_mode", "kind", "turn")
# What one leaderboard row stands for beside its model.
LEADERBOARD_SLOT_COLUMNS = ("table_format", "inference_mode", "scoring_mode", "metric")


def entry_digest(spec: ModelSpec) -> str:
    """What changes a model's answers: backend, model, decoding, system role, sandbox, turn limit, identity."""
    payload = {"backend": spec.backend, "model": spec.model, "params": spec.params, "system_role": spec.system_role,
               "identity": spec.identity, "sandbox": spec.sandbox, "max_turns": spec.max_turns}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _slot(row: dict) -> str:
    return json.dumps([row.get(c) for c in SLOT_COLUMNS], default=str)


@names_damage
class ResultsIndex:
    def __init__(self, store_file: str | Path, busy_timeout_s: float = 60.0):
        self.path = Path(store_file)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite_gate.connect(str(self.path), timeout=busy_timeout_s, isolation_level=None)
        self._con.execute("PRAGMA journal_mode=WAL")
        self._con.execute("PRAGMA synchronous=FULL")
        self._con.executescript(_SCHEMA)

    # ------------------------------------------------------------------ models and their requests
    def record_requests(self, fingerprint: str, specs: list[ModelSpec], entries: dict[str, dict],
                        requests: pd.DataFrame, run_id: str) -> None:
        """Make `requests` (eval_requests rows of this build, without the fingerprint) each model's latest."""
        con = self._con
        now = time.time()
        con.execute("BEGIN IMMEDIATE")
        try:
            for spec in specs:
                digest = entry_digest(spec)
                (old,) = con.execute("SELECT entry_digest FROM evaluated_entries WHERE fingerprint = ? AND "
                                     "model_name = ?", (fingerprint, spec.name)).fetchone() or (None,)
                if old is not None and old != digest:  # another entry under this name: its results leave the marts
                    con.execute("DELETE FROM evaluated_requests WHERE fingerprint = ? AND model_name = ?",
                                (fingerprint, spec.name))
                mine = requests[requests["model_name"] == spec.name]
                rows = [(fingerprint, spec.name, _slot(r), r["cache_key"], json.dumps(r, default=str))
                        for r in mine.to_dict("records")]
                con.executemany("INSERT OR REPLACE INTO evaluated_requests VALUES (?, ?, ?, ?, ?)", rows)
                con.execute("INSERT OR REPLACE INTO evaluated_entries VALUES (?, ?, ?, ?, ?, ?)",
                            (fingerprint, spec.name, digest, json.dumps(entries.get(spec.name, {}), sort_keys=True,
                                                                        default=str), run_id, now))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def requests(self, fingerprint: str) -> pd.DataFrame:
        """Every recorded request row of this fingerprint (each model's latest entry), as recorded."""
        rows = self._con.execute("SELECT row_json FROM evaluated_requests WHERE fingerprint = ? ORDER BY model_name, "
                                 "cache_key", (fingerprint,)).fetchall()
        return pd.DataFrame([json.loads(r) for (r,) in rows])

    def remove_models(self, fingerprint: str, names: Iterable[str]) -> dict[str, int]:
        """Take models out of this fingerprint's results (their answers stay cached); name -> rows removed."""
        out = {}
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            for name in names:
                n = con.execute("DELETE FROM evaluated_requests WHERE fingerprint = ? AND model_name = ?",
                                (fingerprint, name)).rowcount
                con.execute("DELETE FROM evaluated_entries WHERE fingerprint = ? AND model_name = ?",
                            (fingerprint, name))
                n += con.execute("DELETE FROM evaluated_choice_rows WHERE fingerprint = ? AND model_name = ?",
                                 (fingerprint, name)).rowcount
                n += con.execute("DELETE FROM evaluated_leaderboards WHERE fingerprint = ? AND model_name = ?",
                                 (fingerprint, name)).rowcount
                out[name] = n
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return out

    # ------------------------------------------------------------------ two-option items
    def record_choice_rows(self, fingerprint: str, model_names: Iterable[str], rows: pd.DataFrame) -> None:
        """Make `rows` (eval_choice_predictions rows) the results of `model_names` on this fingerprint."""
        names = list(dict.fromkeys(model_names))
        plain = rows.astype(object).where(rows.notna(), None)
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            for name in names:
                con.execute("DELETE FROM evaluated_choice_rows WHERE fingerprint = ? AND model_name = ?",
                            (fingerprint, name))
                mine = plain[plain["model_name"] == name]
                con.executemany("INSERT OR REPLACE INTO evaluated_choice_rows VALUES (?, ?, ?, ?)",
                                [(fingerprint, name, r["cache_key"], json.dumps(r, default=str))
                                 for r in mine.to_dict("records")])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def choice_rows(self, fingerprint: str) -> list[dict]:
        """Every recorded eval_choice_predictions row of this fingerprint, as recorded."""
        rows = self._con.execute("SELECT row_json FROM evaluated_choice_rows WHERE fingerprint = ? ORDER BY "
                                 "model_name, cache_key", (fingerprint,)).fetchall()
        return [json.loads(r) for (r,) in rows]

    # ------------------------------------------------------------------ leaderboards
    def record_leaderboard(self, fingerprint: str, rows: pd.DataFrame, run_id: str) -> None:
        """Make `rows` (eval_leaderboard rows) this fingerprint's, each replacing the row of its model x format x
        mode x scoring mode x metric."""
        plain = rows.astype(object).where(rows.notna(), None)
        records = [(fingerprint, str(r["model_name"]),
                    json.dumps([r.get(c) for c in LEADERBOARD_SLOT_COLUMNS], default=str), json.dumps(r, default=str),
                    run_id) for r in plain.to_dict("records")]
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.executemany("INSERT OR REPLACE INTO evaluated_leaderboards VALUES (?, ?, ?, ?, ?)", records)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def leaderboards(self, fingerprints: Iterable[str]) -> pd.DataFrame:
        """The recorded eval_leaderboard rows of each of `fingerprints`, with a `fingerprint` column."""
        wanted = list(dict.fromkeys(fingerprints))
        rows = []
        for fingerprint in wanted:
            for (row,) in self._con.execute("SELECT row_json FROM evaluated_leaderboards WHERE fingerprint = ? "
                                            "ORDER BY model_name, slot", (fingerprint,)).fetchall():
                rows.append({**json.loads(row), "fingerprint": fingerprint})
        return pd.DataFrame(rows)

    # ------------------------------------------------------------------ runs
    def start_run(self, run_id: str, fingerprint: str, entries_json: str, versions: dict,
                  git_commit: Optional[str]) -> None:
        self._con.execute("INSERT OR IGNORE INTO runs (run_id, started_at, fingerprint, entries_json, versions_json,"
                          " git_commit) VALUES (?, ?, ?, ?, ?, ?)",
                          (run_id, time.time(), fingerprint, entries_json, json.dumps(versions, sort_keys=True),
                           git_commit))

    def end_run(self, run_id: str, counts: pd.DataFrame) -> None:
        """Close a run with its counts per model (columns model_name, requests_sent, requests_cached, requests_failed)."""
        con = self._con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute("UPDATE runs SET ended_at = ? WHERE run_id = ?", (time.time(), run_id))
            con.executemany("INSERT OR REPLACE INTO run_models VALUES (?, ?, ?, ?, ?)",
                            [(run_id, r["model_name"], int(r["requests_sent"]), int(r["requests_cached"]),
                              int(r["requests_failed"])) for r in counts.to_dict("records")])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def runs(self) -> pd.DataFrame:
        """One row per run x model of every run that asked anything, on any fingerprint.

        A run stopped before it ended has no counts recorded: its answers and errors are counted from
        the store's rows that carry its id (taken from the store: unknown, NULL)."""
        sql = """
        with written as (
            select run_id, model_name, count(*) as n from (
                select run_id, model_name from predictions where run_id is not null
                union all select run_id, model_name from errors where run_id is not null)
            group by run_id, model_name),
        failed as (select run_id, model_name, count(*) as n from errors where run_id is not null
                   group by run_id, model_name),
        per_model as (
            select r.run_id, m.model_name, m.requests_sent, m.requests_cached, m.requests_failed
            from runs r join run_models m using (run_id)
            union all
            select w.run_id, w.model_name, w.n, null, coalesce(f.n, 0)
            from written w left join failed f using (run_id, model_name)
            where not exists (select 1 from run_models m where m.run_id = w.run_id))
        select r.run_id, r.started_at, r.ended_at, r.fingerprint, r.entries_json, r.versions_json, r.git_commit,
               p.model_name, p.requests_sent, p.requests_cached, p.requests_failed
        from runs r join per_model p using (run_id)
        where p.requests_sent > 0 or p.requests_failed > 0
        order by r.started_at, r.run_id, p.model_name
        """
        self._ensure_store_tables()
        return self._con.read_frame(sql)

    def fingerprints(self) -> pd.DataFrame:
        """Which fingerprints hold results for which models: one row per fingerprint x model."""
        return self._con.read_frame(
            "SELECT e.fingerprint, e.model_name, e.entry_digest, e.run_id AS last_run_id, count(r.cache_key) AS"
            " n_requests FROM evaluated_entries e LEFT JOIN evaluated_requests r USING (fingerprint, model_name)"
            " GROUP BY 1, 2, 3, 4 ORDER BY 1, 2")

    def _ensure_store_tables(self) -> None:
        from .store import PredictionStore

        PredictionStore(self.path, run_id="-").close()  # creates (or upgrades) predictions and errors

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> "ResultsIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
