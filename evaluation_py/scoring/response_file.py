"""Reading a responses file in every shape the HCT-QA release ships: the one reader of the scoring CLI and the
replay backend.

Layout: JSONL (one object a line, by the rules of :mod:`evaluation_py.scoring.jsonl`) or one JSON list of
objects (the release's own scorer reads its files with ``json.load``); a file whose first character, after
a byte-order mark and whitespace, is ``[`` is a list. The same encoding rules hold for both (UTF-8, a
byte-order mark accepted, gzip when named ``*.gz``). A list's items are numbered by the line they start on,
so every error names ``file:line`` either way.

Keys of one record (the first key present of each kind is read):

- the question id: ``qap_id`` or ``id`` (a number is read as its text);
- the model's answer: ``response`` or ``output``: text, null (no response), or a number (read as its
  JSON text); a record giving both with different values is an error;
- the ground truth: ``gt`` or ``ground_truth``: text, or absent / null (the release's vision results
  carry only ``id`` and ``response``): the caller supplies it by id (:mod:`evaluation_py.scoring.ground_truth`);
- ``question`` (optional text); every other key is kept in :attr:`ResponseRecord.fields`.

Errors are :class:`ResponseFileError` (a ValueError) naming the file and the line.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from .jsonl import JsonlError, read_jsonl, text_file

ID_KEYS = ("qap_id", "id")
RESPONSE_KEYS = ("response", "output")
GT_KEYS = ("gt", "ground_truth")


class ResponseFileError(ValueError):
    """Bad responses file; the message names the file and, where it applies, the line."""


@dataclass(frozen=True)
class ResponseRecord:
    """One record of a responses file, its keys read (module doc)."""

    where: str  # "file:line"
    line: int
    id: Optional[str]  # None: the record has no id
    has_response: bool  # a response key is present (its value may be null)
    response: Optional[str]
    gt: Optional[str]  # None: absent or null
    question: Optional[str]
    fields: dict  # the record as read


def read_response_records(path: Union[str, Path]) -> Iterator[ResponseRecord]:
    """Every record of the file at ``path`` in file order (rules: module doc)."""
    name = str(path)
    for line, obj in _objects(path):
        where = f"{name}:{line}"
        qid = next((obj[k] for k in ID_KEYS if obj.get(k) is not None), None)
        if qid is not None and (isinstance(qid, bool) or not isinstance(qid, (str, int))):
            raise ResponseFileError(f"{where}: the id must be text or a number, got {type(qid).__name__}")
        present = [k for k in RESPONSE_KEYS if k in obj]
        if len(present) > 1 and obj[present[0]] != obj[present[1]]:
            raise ResponseFileError(f"{where}: both {present[0]!r} and {present[1]!r}, with different values")
        response = _text(obj[present[0]], present[0], where, numbers=True) if present else None
        gt_key = next((k for k in GT_KEYS if obj.get(k) is not None), None)
        gt = _text(obj[gt_key], gt_key, where) if gt_key else None
        question = _text(obj["question"], "question", where, numbers=True) if obj.get("question") is not None else None
        yield ResponseRecord(where, line, None if qid is None or str(qid) == "" else str(qid), bool(present),
                             response, gt, question, obj)


def _text(value: Any, key: str, where: str, numbers: bool = False) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        return json.dumps(value)
    allowed = "text, a number or null" if numbers else "text"
    raise ResponseFileError(f"{where}: {key!r} must be {allowed}, got {type(value).__name__}")


def _objects(path: Union[str, Path]) -> Iterator[tuple[int, dict]]:
    """(line, object) pairs of a JSONL file or of a JSON list."""
    text = _head(path)
    if not text.lstrip().startswith("["):
        try:
            yield from read_jsonl(path)
        except JsonlError as exc:
            raise ResponseFileError(str(exc)) from None
        return
    yield from _list_items(str(path), _whole(path))


def _read(path: Union[str, Path], size: int = -1) -> str:
    with text_file(path, ResponseFileError, "a responses file") as fh:
        return fh.read(size)


def _head(path: Union[str, Path]) -> str:
    """The file's first characters: enough to tell a list from JSONL past leading whitespace."""
    head = _read(path, 4096)
    return head if head.strip() or len(head) < 4096 else _whole(path)


def _whole(path: Union[str, Path]) -> str:
    return _read(path)


_WS = " \t\r\n"


def _list_items(name: str, text: str) -> Iterator[tuple[int, dict]]:
    decoder = json.JSONDecoder()
    i, line = _skip(text, 0), 1
    line += text.count("\n", 0, i)
    pos = i + 1  # past the "["
    first = True
    while True:
        j = _skip(text, pos)
        line += text.count("\n", pos, j)
        if j < len(text) and text[j] == "]":
            rest = _skip(text, j + 1)
            if rest != len(text):
                raise ResponseFileError(f"{name}:{line + text.count(chr(10), j, rest)}: text after the JSON list")
            return
        if not first:
            if j >= len(text) or text[j] != ",":
                raise ResponseFileError(f"{name}:{line}: malformed JSON list (expected ',' or ']')")
            k = _skip(text, j + 1)
            line += text.count("\n", j, k)
            j = k
        try:
            obj, end = decoder.raw_decode(text, j)
        except json.JSONDecodeError as exc:
            raise ResponseFileError(f"{name}:{exc.lineno}: malformed JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(obj, dict):
            raise ResponseFileError(f"{name}:{line}: expected a JSON object, got {type(obj).__name__}")
        yield line, obj
        line += text.count("\n", j, end)
        pos, first = end, False


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i
