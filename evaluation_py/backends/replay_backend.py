"""Answers from a responses file of the HCT-QA release (JSONL, optionally gzipped).

Config: `path` (required). Each non-blank line is a JSON object with the question id in `qap_id` (or
`id`) and the model's text in `response`; optional `gt` and `question` tie the line to the benchmark
(`check_against_benchmark`), other fields are ignored. A request whose `question_id` the file lacks
gets a Prediction with `response=None`, `error_kind="missing"`; a line whose `response` is null gives
`error_kind="null_response"`. A missing file, a line that is not a JSON object, a line without an id
or `response`, or one id given two different responses raises ValueError naming the file and the line.
The cache key holds the file's content hash (`answer_identity`), so another file is another answer.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from generator_py.build_config import file_digest

from ..jsonl import JsonlError, read_jsonl
from .base import Backend, Prediction, PredictionRequest, register

_UNSET = object()
_MAX_SHOWN = 5  # mismatches named in an error


@dataclass
class ResponsesFile:
    """What a responses file holds, by question id (first line of an id for `gt` / `question`)."""

    path: Path
    responses: dict[str, Optional[str]] = field(default_factory=dict)
    gt: dict[str, str] = field(default_factory=dict)
    question: dict[str, str] = field(default_factory=dict)
    line_of: dict[str, int] = field(default_factory=dict)
    repeated_lines: int = 0  # lines repeating an earlier line's id and response


def read_responses(path: str | Path) -> ResponsesFile:
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"replay backend: responses file {str(p)!r} does not exist")
    out = ResponsesFile(p)
    try:
        for lineno, obj in read_jsonl(p):  # blank lines, BOM, gzip, bad JSON: evaluation_py.jsonl
            where = f"{p}:{lineno}"
            qid = obj.get("qap_id", obj.get("id"))
            if qid is None or str(qid) == "":
                raise ValueError(f"replay backend: {where}: no 'qap_id' or 'id'")
            if "response" not in obj:
                raise ValueError(f"replay backend: {where}: no 'response'")
            resp = _text(obj["response"])
            qid = str(qid)
            if qid in out.responses:
                if out.responses[qid] != resp:
                    raise ValueError(
                        f"replay backend: {where}: id {qid!r} has another response on line {out.line_of[qid]}")
                out.repeated_lines += 1
                continue
            out.responses[qid] = resp
            out.line_of[qid] = lineno
            for key, into in (("gt", out.gt), ("question", out.question)):
                if obj.get(key) is not None:
                    into[qid] = _text(obj[key])
    except JsonlError as e:
        raise ValueError(f"replay backend: {e}") from None
    return out


def _text(value: Any) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else str(value)


def load_responses(path: str | Path) -> dict[str, Optional[str]]:
    """`{question id: response text or None}` from a release responses file."""
    return read_responses(path).responses


def file_sha256(path: str | Path) -> str:
    try:
        return file_digest(Path(path))
    except OSError as e:
        raise ValueError(f"replay backend: cannot read {str(path)!r}: {e}") from None


def _same_text(a: str, b: str) -> bool:
    return re.sub(r"\s+", " ", a).strip() == re.sub(r"\s+", " ", b).strip()


def check_against_benchmark(responses: ResponsesFile, questions: Any, model_name: str = "") -> str:
    """Tie a responses file to the benchmark it answers; returns a note for the log ("" when all is well).

    `questions` is a frame with `question_id`, `question` and `answer_gt`. A line's `gt` / `question`
    must equal the benchmark's for its id (whitespace runs aside), else ValueError naming the file, the
    number of mismatches and the first of them: ids are structural, so responses to another seed's
    benchmark match every id. Ids the benchmark lacks and repeated identical lines are counted in the note.
    """
    gt_of = dict(zip(questions["question_id"].astype(str), questions["answer_gt"]))
    text_of = dict(zip(questions["question_id"].astype(str), questions["question"]))
    unknown = [q for q in responses.responses if q not in gt_of]
    mismatches = []
    for field_name, given, expected in (("gt", responses.gt, gt_of), ("question", responses.question, text_of)):
        for qid, value in given.items():
            if qid in expected and not _same_text(str(value), str(expected[qid])):
                mismatches.append((responses.line_of[qid], qid, field_name, value, expected[qid]))
    who = f"replay model {model_name!r}: " if model_name else "replay backend: "
    if mismatches:
        mismatches.sort()
        shown = "; ".join(f"line {ln} id {qid!r}: {f} {v!r} in the file, {e!r} in the benchmark"
                          for ln, qid, f, v, e in mismatches[:_MAX_SHOWN])
        raise ValueError(f"{who}{responses.path}: {len(mismatches)} line(s) disagree with the benchmark "
                         f"(responses to another benchmark or seed?): {shown}")
    notes = []
    if unknown:
        notes.append(f"{len(unknown)} id(s) not in the benchmark (first: {', '.join(map(repr, unknown[:_MAX_SHOWN]))})")
    if responses.repeated_lines:
        notes.append(f"{responses.repeated_lines} repeated identical line(s)")
    return f"{who}{responses.path}: " + "; ".join(notes) if notes else ""


@register("replay")
class ReplayBackend(Backend):
    entry_keys = frozenset({"path"})
    answer_keys = frozenset()  # the file's content, not its path, decides the answers
    benchmark_fields = ("question_id",)  # answers are looked up by id, not by prompt

    @classmethod
    def check_entry(cls, config: dict[str, Any]) -> None:
        if not config.get("path"):
            raise ValueError("replay backend: config key 'path' is required")
        if not Path(config["path"]).is_file():
            raise ValueError(f"replay backend: responses file {str(config['path'])!r} does not exist")

    @classmethod
    def answer_identity(cls, config: dict[str, Any]) -> dict[str, Any]:
        cls.check_entry(config)
        return {"responses_sha256": file_sha256(config["path"])}

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
