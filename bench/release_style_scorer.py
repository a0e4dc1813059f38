"""The HCT-QA release's scoring procedure, run the way a plain evaluation script runs it: the reference
side of `bench_scoring_cli.py`.

The release's own script is not part of this project (nor fetched: the machine reaches package
registries only). This is a reimplementation of its procedure, written here: pandas reads the JSONL,
each row is cleaned and split by the release's rules (`evaluation_py.scoring.paper_reading`, which reproduces the
release's published scores) with `DataFrame.apply`, precision, recall, F1 and complete containment are
computed per row, then averaged over the rows not left out. No caches: every line is read on its own.

    .venv/bin/python bench/release_style_scorer.py RESPONSES.jsonl
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evaluation_py.scoring.paper_reading import clean_response, is_left_out, response_values  # noqa: E402
from generator_py.release.gt import gt_values  # noqa: E402


def score_row(row: pd.Series) -> pd.Series:
    if is_left_out(row["response"]):
        return pd.Series({"left_out": True, "precision": 0.0, "recall": 0.0, "f1": 0.0, "cc": 0.0})
    resp = response_values(clean_response(str(row["response"])))
    gt = gt_values(row["gt"])
    inter = len(resp & gt)
    p = inter / len(resp) if resp else 0.0
    r = inter / len(gt) if gt else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return pd.Series({"left_out": False, "precision": p, "recall": r, "f1": f1,
                      "cc": 1.0 if gt and inter == len(gt) else 0.0})


def main(path: str) -> None:
    df = pd.read_json(path, lines=True, dtype=False)
    scored = df.apply(score_row, axis=1)
    kept = scored[~scored["left_out"].astype(bool)]
    print(json.dumps({"n": len(df), "left_out": int(scored["left_out"].sum()),
                      **{m: round(float(kept[m].mean()), 4) for m in ("precision", "recall", "f1", "cc")}}))


if __name__ == "__main__":
    main(sys.argv[1])
