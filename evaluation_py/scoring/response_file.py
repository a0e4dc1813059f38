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

A well-formed list is read with one ``json.loads``; the line each item starts on is found only when asked
for (an error, a repeated id), by one scan of the list. A list that ``json.loads`` refuses is scanned item by
item, which names the line at fault.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Optional, Union

from .jsonl import JsonlError, read_jsonl, text_file

ID_KEYS = ("qap_id", "id")
RESPONSE_KEYS = ("response", "output")
GT_KEYS = ("gt", "ground_truth")


class ResponseFileError(ValueError):
    """Bad responses file; the message names the file and, where it applies, the line."""


class ResponseRecord:
    """One record of a responses file, its keys read (module doc)."""

    __slots__ = ("file", "_line", "id", "has_response", "response", "gt", "question", "fields")

    def __init__(self, file: str, line: Union[int, tuple], id: Optional[str], has_response: bool,
                 response: Optional[str], gt: Optional[str], question: Optional[str], fields: dict):
        self.file = file
        self._line = line  # the line, or (item index, _ListLines) until it is asked for
        self.id = id  # None: the record has no id
        self.has_response = has_response  # a response key is present (its value may be null)
        self.response = response
        self.gt = gt  # None: absent or null
        self.question = question
        self.fields = fields  # the record as read

    @property
    def line(self) -> int:
        """The line the record starts on."""
        if self._line.__class__ is tuple:
            index, lines = self._line
            self._line = lines.of(index)
        return self._line

    @property
    def where(self) -> str:
        """``file:line``, what every error about the record starts with."""
        return f"{self.file}:{self.line}"


def read_response_records(path: Union[str, Path]) -> Iterator[ResponseRecord]:
    """Every record of the file at ``path`` in file order (rules: module doc)."""
    name = str(path)
    for line, obj in _objects(path):
        rec = ResponseRecord(name, line, None, False, None, None, None, obj)
        qid = obj.get(ID_KEYS[0])
        if qid is None:
            qid = obj.get(ID_KEYS[1])
        if qid is not None:
            if qid.__class__ is not str:
                if isinstance(qid, bool) or not isinstance(qid, (str, int)):
                    raise ResponseFileError(f"{rec.where}: the id must be text or a number, got {type(qid).__name__}")
                qid = str(qid)
            if qid:
                rec.id = qid
        first, second = RESPONSE_KEYS
        key = first if first in obj else (second if second in obj else None)
        if key is not None:
            if key == first and second in obj and obj[second] != obj[first]:
                raise ResponseFileError(f"{rec.where}: both {first!r} and {second!r}, with different values")
            rec.has_response = True
            rec.response = _text(obj[key], key, rec, numbers=True)
        for key in GT_KEYS:
            gt = obj.get(key)
            if gt is not None:
                rec.gt = _text(gt, key, rec)
                break
        question = obj.get("question")
        if question is not None:
            rec.question = _text(question, "question", rec, numbers=True)
        yield rec


def _text(value: Any, key: str, rec: ResponseRecord, numbers: bool = False) -> Optional[str]:
    if value is None or value.__class__ is str:
        return value
    if numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        return json.dumps(value)
    allowed = "text, a number or null" if numbers else "text"
    raise ResponseFileError(f"{rec.where}: {key!r} must be {allowed}, got {type(value).__name__}")


def _objects(path: Union[str, Path]) -> Iterator[tuple[Union[int, tuple], dict]]:
    """(line, object) pairs of a JSONL file or of a JSON list (an item's line: (index, _ListLines))."""
    text = _head(path)
    if not text.lstrip().startswith("["):
        try:
            yield from read_jsonl(path)
        except JsonlError as exc:
            raise ResponseFileError(str(exc)) from None
        return
    text = _whole(path)
    try:
        items = json.loads(text)
    except json.JSONDecodeError:  # the scan names the line at fault
        items = None
    if items.__class__ is not list:
        for line, obj in _list_items(str(path), text):
            yield line, obj
        return
    lines = _ListLines(str(path), text)
    for i, obj in enumerate(items):
        if obj.__class__ is not dict:
            raise ResponseFileError(f"{path}:{lines.of(i)}: expected a JSON object, got {type(obj).__name__}")
        yield (i, lines), obj


class _ListLines:
    """The line each item of a well-formed JSON list starts on, found by one scan on the first question."""

    def __init__(self, name: str, text: str):
        self.name, self._text, self._lines = name, text, None

    def of(self, index: int) -> int:
        if self._lines is None:
            self._lines = [line for line, _ in _list_items(self.name, self._text)]
            self._text = None
        return self._lines[index]


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
