"""Answers from a responses file of the HCT-QA release (JSONL or one JSON list, optionally gzipped).

Config: `path` (required). The file is read by `evaluation_py.scoring.response_file` (the scoring CLI's
reader too): each record has the question id in `qap_id` (or `id`) and the model's text in `response` (or
`output`); an optional ground truth (`gt` or `ground_truth`) and `question` tie the line to the benchmark
(`check_against_benchmark`), other fields are ignored. A request whose `question_id` the file lacks
gets a Prediction with `response=None`, `error_kind="missing"`; a line whose `response` is null gives
`error_kind="null_response"`. A missing file, a line that is not a JSON object, a line without an id
or `response`, or one id given two different responses raises ValueError naming the file and the line.
The cache key holds the file's content hash (`answer_identity`), so another file is another answer.

Transcripts of every inference mode (outputs of other harnesses, scored here): a line with
`inference_mode` answers only requests of that mode (a line without one answers every mode's first
turn, as above) and gives its replies as `response` (one turn), `turns` (the model's replies in
order, one per turn) or `transcript` (chat messages; the assistant ones are the replies), or, for
pot, `program` (the program text, sent on as a ```python block). Turn t of an episode is answered
with reply t; the follow-ups between them are this harness's own (icot: its sandbox's output), so
the episode is re-run here, not copied. An episode that goes on past the file's replies gets
`error_kind="missing"` for that turn. An unknown mode, or `turns` that are not a list of text,
raises ValueError naming the file and the line.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ..scoring.response_file import ResponseFileError, ResponseRecord, read_response_records
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
    turns: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (id, inference mode) -> replies


# Files read in this process, by (path, size, modification time): the build checks every responses
# file up front (stg_build_config) and the evaluation models reuse that one full read.
_READ: dict[tuple[str, int, int], ResponsesFile] = {}


def read_responses(path: str | Path) -> ResponsesFile:
    """The whole file, checked line by line (read once per process while the file is unchanged)."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"replay backend: responses file {str(p)!r} does not exist")
    stat = p.stat()
    key = (str(p.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _READ:
        _READ[key] = _read_responses(p)
    return _READ[key]


def _read_responses(p: Path) -> ResponsesFile:
    out = ResponsesFile(p)
    try:
        for rec in read_response_records(p):  # shapes and keys: evaluation_py.scoring.response_file
            where, obj = rec.where, rec.fields
            if rec.id is None:
                raise ValueError(f"replay backend: {where}: no 'qap_id' or 'id'")
            qid = rec.id
            if obj.get("inference_mode") is not None:
                _read_mode_line(out, rec)
                continue
            if not rec.has_response:
                raise ValueError(f"replay backend: {where}: no 'response' (or 'output')")
            resp = rec.response
            if qid in out.responses:
                if out.responses[qid] != resp:
                    raise ValueError(
                        f"replay backend: {where}: id {qid!r} has another response on line {out.line_of[qid]}")
                out.repeated_lines += 1
                continue
            out.responses[qid] = resp
            out.line_of[qid] = rec.line
            _keep_checks(out, rec, first=True)
    except ResponseFileError as e:
        raise ValueError(f"replay backend: {e}") from None
    return out


def _keep_checks(out: ResponsesFile, rec: ResponseRecord, first: bool) -> None:
    """The line's ground truth and question, which tie the file to the benchmark (check_against_benchmark)."""
    for value, into in ((rec.gt, out.gt), (rec.question, out.question)):
        if value is not None:
            if first:
                into[rec.id] = value
            else:
                into.setdefault(rec.id, value)


def _read_mode_line(out: ResponsesFile, rec: ResponseRecord) -> None:
    """A line of one inference mode: its replies, turn by turn (see the module docstring)."""
    from ..modes.inference_mode import get_mode, mode_names

    obj, qid, where = rec.fields, rec.id, rec.where
    mode = str(obj["inference_mode"])
    if mode not in mode_names():
        raise ValueError(f"replay backend: {where}: unknown inference_mode {mode!r}; known: {', '.join(mode_names())}")
    if "turns" in obj:
        replies = obj["turns"]
        if not isinstance(replies, list) or not replies or not all(isinstance(t, str) for t in replies):
            raise ValueError(f"replay backend: {where}: 'turns' must be a non-empty list of reply texts")
    elif "transcript" in obj:
        messages = obj["transcript"]
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            raise ValueError(f"replay backend: {where}: 'transcript' must be a list of chat messages")
        replies = [_text(m.get("content")) or "" for m in messages if m.get("role") == "assistant"]
        if not replies:
            raise ValueError(f"replay backend: {where}: 'transcript' has no assistant message")
    elif "program" in obj:
        if not get_mode(mode).runs_code:
            raise ValueError(f"replay backend: {where}: 'program' is for modes that run code, not {mode!r}")
        replies = ["```python\n" + str(obj["program"]).strip("\n") + "\n```"]
    elif rec.has_response:
        replies = [rec.response or ""]
    else:
        raise ValueError(f"replay backend: {where}: a line of inference_mode {mode!r} needs 'turns', "
                         "'transcript', 'program' or 'response' (or 'output')")
    if (qid, mode) in out.turns and out.turns[(qid, mode)] != replies:
        raise ValueError(f"replay backend: {where}: id {qid!r} mode {mode!r} has other replies on an earlier line")
    out.turns[(qid, mode)] = replies
    out.line_of.setdefault(qid, rec.line)
    _keep_checks(out, rec, first=False)


def _text(value: Any) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (list, dict)) else str(value)


def load_responses(path: str | Path) -> dict[str, Optional[str]]:
    """`{question id: response text or None}` from a release responses file."""
    return read_responses(path).responses


def file_sha256(path: str | Path) -> str:
    try:
        from generator_py.dbt_glue.build_config import file_digest  # late: it imports pandas

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
    unknown = [q for q in dict.fromkeys([*responses.responses, *(q for q, _ in responses.turns)]) if q not in gt_of]
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
    """Replays recorded responses from a JSONL file (another harness's outputs)."""

    entry_keys = frozenset({"path"})
    answer_keys = frozenset()  # the file's content, not its path, decides the answers
    benchmark_fields = ("question_id",)  # answers are looked up by id, not by prompt
    capabilities = frozenset({"multi_turn"})  # a transcript's replies, turn by turn
    needs_model = False

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
        read = read_responses(self.path)
        self.responses, self.turns = read.responses, read.turns

    def _reply(self, r: PredictionRequest):
        replies = self.turns.get((r.question_id, r.inference_mode))
        if replies is not None:
            return replies[r.turn] if r.turn < len(replies) else _UNSET
        return self.responses.get(r.question_id, _UNSET) if r.turn == 0 else _UNSET

    def run(self, requests: list[PredictionRequest], on_result: Callable[[Prediction], None]) -> None:
        for r in requests:
            resp = self._reply(r)
            if resp is _UNSET:
                kind = "missing"
                resp = None
            else:
                kind = None if resp is not None else "null_response"
            on_result(Prediction(cache_key=r.cache_key, question_id=r.question_id, model_name=r.model_name,
                                 response=resp, error_kind=kind, attempts=1, latency_s=0.0))
