"""Answers from a responses file of the HCT-QA release (JSONL, optionally gzipped).

Config: `path` (required). Each non-blank line is a JSON object with the question id in `qap_id` (or
`id`) and the model's text in `response`; other fields are ignored. A request whose `question_id` the
file lacks gets a Prediction with `response=None`, `error_kind="missing"`; a line whose `response` is
null gives `error_kind="null_response"`. A missing file, a line that is not a JSON object, a line
without an id or `response`, or one id given two different responses raises ValueError naming the
file and the line.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Callable, Optional

from .base import Backend, Prediction, PredictionRequest, register

_UNSET = object()


def load_responses(path: str | Path) -> dict[str, Optional[str]]:
    """`{question id: response text or None}` from a release responses file."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"replay backend: responses file {str(p)!r} does not exist")
    opener = gzip.open if p.name.endswith(".gz") else open
    out: dict[str, Optional[str]] = {}
    first_line: dict[str, int] = {}
    try:
        with opener(p, "rt", encoding="utf-8") as f:
            for lineno, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                where = f"{p}:{lineno}"
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    raise ValueError(f"replay backend: {where}: malformed JSON ({e.msg})") from None
                if not isinstance(obj, dict):
                    raise ValueError(f"replay backend: {where}: expected a JSON object")
                qid = obj.get("qap_id", obj.get("id"))
                if qid is None or str(qid) == "":
                    raise ValueError(f"replay backend: {where}: no 'qap_id' or 'id'")
                if "response" not in obj:
                    raise ValueError(f"replay backend: {where}: no 'response'")
                resp = obj["response"]
                if resp is not None and not isinstance(resp, str):
                    resp = json.dumps(resp, ensure_ascii=False) if isinstance(resp, (list, dict)) else str(resp)
                qid = str(qid)
                if qid in out and out[qid] != resp:
                    raise ValueError(
                        f"replay backend: {where}: id {qid!r} has another response on line {first_line[qid]}"
                    )
                out[qid] = resp
                first_line.setdefault(qid, lineno)
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as e:
        raise ValueError(f"replay backend: cannot read {str(p)!r}: {e}") from None
    return out


@register("replay")
class ReplayBackend(Backend):
    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        if not config.get("path"):
            raise ValueError("replay backend: config key 'path' is required")
        self.path = Path(config["path"])
        self.responses = load_responses(self.path)

    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        for r in requests:
            resp = self.responses.get(r.question_id, _UNSET)
            if resp is _UNSET:
                kind = "missing"
                resp = None
            else:
                kind = None if resp is not None else "null_response"
            on_result(Prediction(cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                                 response=resp, error_kind=kind, attempts=1, latency_s=0.0))
