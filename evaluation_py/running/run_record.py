"""Closing a run's record: its counts per model into the store, its results file, and the eval_runs rows."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .results import ResultsIndex
from .runs import current_run_id

RUN_COLUMNS = ["run_id", "started_at", "ended_at", "fingerprint", "entries", "versions", "git_commit", "model_name",
               "requests_sent", "requests_cached", "requests_failed"]
HEADLINE_COLUMNS = ["table_format", "inference_mode", "scoring_mode", "metric", "mean", "ci_low", "ci_high",
                    "n_questions", "n_tables"]


def run_counts(requests: pd.DataFrame, predictions: pd.DataFrame, errors: pd.DataFrame, run_id: str) -> pd.DataFrame:
    """Per model of this build: requests sent this run (answered now or failed), taken from the store, failed."""
    mine = requests[requests["this_build"].astype(bool)].drop_duplicates("cache_key")
    answered = predictions[predictions["cache_key"].isin(set(mine["cache_key"]))]
    failed = errors[errors["cache_key"].isin(set(mine["cache_key"]))]
    rows = []
    for model_name in sorted(mine["model_name"].unique()):
        a = answered[answered["model_name"] == model_name]
        now = int((a["run_id"] == run_id).sum())
        n_failed = int((failed["model_name"] == model_name).sum())
        rows.append((model_name, now + n_failed, len(a) - now, n_failed))
    return pd.DataFrame(rows, columns=["model_name", "requests_sent", "requests_cached", "requests_failed"])


def close_run(store: Path, runs_dir: Path, fingerprint: str, requests: pd.DataFrame, predictions: pd.DataFrame,
              errors: pd.DataFrame, leaderboard: pd.DataFrame) -> dict | None:
    """Record this run's counts and write `runs_dir/<run_id>.json`, when the run asked anything."""
    run_id = current_run_id()
    counts = run_counts(requests, predictions, errors, run_id)
    if not (counts["requests_sent"] > 0).any():
        return None  # everything came from the store: no run to record
    with ResultsIndex(store) as index:
        index.end_run(run_id, counts)
        runs = index.runs()
    rows = runs[runs["run_id"] == run_id]
    first = rows.iloc[0]
    board = leaderboard[(leaderboard["scoring_mode"] == "strict") & leaderboard["model_name"].isin(set(counts["model_name"]))]
    record = {
        "run_id": run_id,
        "started_at": _iso(first["started_at"]), "ended_at": _iso(first["ended_at"]),
        "fingerprint": fingerprint,
        "entries": json.loads(first["entries_json"]),
        "versions": json.loads(first["versions_json"]),
        "git_commit": first["git_commit"],
        "models": {
            r["model_name"]: {
                "requests_sent": int(r["requests_sent"]), "requests_cached": int(r["requests_cached"]),
                "requests_failed": int(r["requests_failed"]),
                "results": [{k: _plain(v) for k, v in h.items()}
                            for h in board.loc[board["model_name"] == r["model_name"], HEADLINE_COLUMNS]
                            .to_dict("records")],
            } for r in counts.to_dict("records")},
    }
    runs_dir.mkdir(parents=True, exist_ok=True)
    path = runs_dir / f"{run_id}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return record


def runs_table(store: Path) -> pd.DataFrame:
    """eval_runs: every recorded run x model, on every fingerprint."""
    with ResultsIndex(store) as index:
        runs = index.runs()
    out = runs.rename(columns={"entries_json": "entries", "versions_json": "versions"})
    for c in ("started_at", "ended_at"):
        out[c] = pd.to_datetime(out[c], unit="s", utc=True).dt.tz_localize(None)
    for c in ("requests_sent", "requests_cached", "requests_failed"):
        out[c] = out[c].astype("Int64")
    for c in ("run_id", "fingerprint", "entries", "versions", "git_commit", "model_name"):
        out[c] = out[c].astype("string")
    return out[RUN_COLUMNS].reset_index(drop=True)


def _iso(epoch) -> str | None:
    if epoch is None or pd.isna(epoch):
        return None
    return pd.Timestamp(float(epoch), unit="s", tz="UTC").isoformat()


def _plain(v):
    if isinstance(v, float) or hasattr(v, "item"):
        v = v.item() if hasattr(v, "item") else v
    return None if isinstance(v, float) and v != v else v
