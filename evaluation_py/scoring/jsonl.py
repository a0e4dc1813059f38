"""Reading a JSONL file: one rule set for every JSONL input (responses to score, replayed answers).

Rules:

- the file is UTF-8 text, gzip-compressed when its name ends in `.gz`; a byte-order mark at its
  start is accepted (editors on Windows write one);
- a blank line (empty or whitespace only) is skipped, but still counts in the line numbers;
- every other line is one JSON object (`{...}`); anything else is an error.

Every error is a :class:`JsonlError` (a ValueError) whose message starts with the file, and with
`file:line` when a line is at fault: a missing file, a directory, an unreadable or non-UTF-8 file,
a broken gzip stream, malformed JSON (with the column), a line that is not an object.
"""
from __future__ import annotations

import gzip
import json
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, TextIO, Union


class JsonlError(ValueError):
    """Bad JSONL input; the message names the file and, where it applies, the line."""


@contextmanager
def text_file(path: Union[str, Path], error: type[Exception] = JsonlError,
              what: str = "a JSONL file") -> Iterator[TextIO]:
    """The file at `path` open as text by the rules above; a failure to open or to read it while the block
    runs is `error` naming the file (`what`: what a directory is not)."""
    name = str(path)
    opener = gzip.open if name.endswith(".gz") else open
    try:
        fh = opener(path, "rt", encoding="utf-8-sig")
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except IsADirectoryError:
        raise error(f"{name}: is a directory, not {what}") from None
    except OSError as exc:
        raise error(f"{name}: cannot open: {exc.strerror or exc}") from None
    with fh:
        try:
            yield fh
        except UnicodeDecodeError as exc:
            raise error(f"{name}: not UTF-8 text ({exc.reason})") from None
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise error(f"{name}: not a readable gzip file ({exc})") from None
        except IsADirectoryError:
            raise error(f"{name}: is a directory, not {what}") from None


def read_jsonl(path: Union[str, Path]) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every non-blank line of `path`, in file order (rules: module doc)."""
    name = str(path)
    with text_file(path) as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise JsonlError(f"{name}:{lineno}: malformed JSON ({exc.msg} at column {exc.colno})") from None
            if not isinstance(obj, dict):
                raise JsonlError(f"{name}:{lineno}: expected a JSON object, got {type(obj).__name__}")
            yield lineno, obj
