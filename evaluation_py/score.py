"""Score a JSONL file of responses: ``python -m evaluation_py.score RESPONSES.jsonl [--mode strict|paper] [--by KEY]``.

Each non-blank line is a JSON object with an id (``qap_id`` or ``id``), a
``response`` (a string, or null for a missing response) and a ``gt`` string.
Prints one JSON object: ``mode``, ``n``, ``left_out``, ``precision``,
``recall``, ``f1``, ``cc`` and, with ``--by``, ``groups`` (one such object
per group, without ``mode``). ``--by dataset`` takes the dataset from the id
prefix before the first ``--`` unless the lines carry a ``dataset`` key; any
other key must be present on every line. Numbers are rounded to 4 decimals.
Bad input (missing file, malformed line, missing field) exits with status 2
and a message naming the file and line.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import pandas as pd

from .scoring import METRICS, MODES, dataset_of, score_frame, summarize

ID_KEYS = ("qap_id", "id")


class InputError(Exception):
    """Bad input file; the message names the file and, where it applies, the line."""


def read_responses(path: str, by: str | None = None) -> pd.DataFrame:
    """Read a responses JSONL into a frame with ``id``, ``response``, ``gt`` (and ``group`` when ``by`` is given)."""
    ids: list = []
    responses: list = []
    gts: list = []
    groups: list = []
    try:
        fh = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a JSONL file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot open: {exc.strerror or exc}") from None
    with fh:
        try:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                where = f"{path}:{lineno}"
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"{where}: malformed JSON ({exc.msg} at column {exc.colno})") from None
                if not isinstance(obj, dict):
                    raise InputError(f"{where}: expected a JSON object, got {type(obj).__name__}")
                id_key = next((k for k in ID_KEYS if obj.get(k) is not None), None)
                if id_key is None:
                    raise InputError(f"{where}: missing id (one of {', '.join(ID_KEYS)})")
                if "response" not in obj:
                    raise InputError(f"{where}: missing 'response'")
                resp = obj["response"]
                if resp is not None and not isinstance(resp, str):
                    raise InputError(f"{where}: 'response' must be a string or null, got {type(resp).__name__}")
                gt = obj.get("gt")
                if "gt" not in obj or gt is None:
                    raise InputError(f"{where}: missing 'gt'")
                if not isinstance(gt, str):
                    raise InputError(f"{where}: 'gt' must be a string, got {type(gt).__name__}")
                ids.append(str(obj[id_key]))
                responses.append(resp)
                gts.append(gt)
                if by is not None:
                    if by in obj:
                        groups.append(_group_name(obj[by]))
                    elif by == "dataset":
                        groups.append(dataset_of(obj[id_key]))
                    else:
                        raise InputError(f"{where}: missing key {by!r} named by --by")
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text ({exc.reason})") from None
    df = pd.DataFrame({"id": ids, "response": pd.Series(responses, dtype=object), "gt": gts})
    if by is not None:
        df["group"] = groups
    return df


def _group_name(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True)


def _num(x: Any) -> float | None:
    x = float(x)
    if math.isnan(x):
        return None
    return round(x, 4)


def _row_dict(row: pd.Series) -> dict:
    out = {"n": int(row["n"]), "left_out": int(row["left_out"])}
    for m in METRICS:
        out[m] = _num(row[m])
    return out


def score_file(path: str, mode: str = "paper", by: str | None = None) -> dict:
    """Score one responses file; returns the JSON-ready summary the CLI prints."""
    df = read_responses(path, by)
    scored = score_frame(df)
    if len(scored) == 0:
        result = {"mode": mode, "n": 0, "left_out": 0, **{m: None for m in METRICS}}
    else:
        result = {"mode": mode, **_row_dict(summarize(scored, mode, []).iloc[0])}
    if by is not None:
        groups: dict = {}
        if len(scored):
            for _, row in summarize(scored, mode, ["group"]).iterrows():
                groups[str(row["group"])] = _row_dict(row)
        result["groups"] = groups
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation_py.score",
        description="Score HCT-QA responses (precision, recall, F1, complete containment).",
    )
    parser.add_argument("responses", help="JSONL file: one object a line with qap_id or id, response, gt")
    parser.add_argument("--mode", choices=MODES, default="paper",
                        help="paper: leave no-answer/error/missing responses out of the averages; "
                             "strict: count them as 0 (default: paper)")
    parser.add_argument("--by", default=None, metavar="KEY",
                        help="also report per group: 'dataset' (id prefix before '--') or any key of the lines")
    args = parser.parse_args(argv)
    try:
        result = score_file(args.responses, args.mode, args.by)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
