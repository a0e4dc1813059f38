"""What a program gets and what it gives back.

A program sees what a reader of the table sees and nothing else: the renderings as text (`html`,
`markdown`, `csv`) and `df`, the CSV rendering read with pandas with no header inference and every
cell a string exactly as the CSV shows it. Its answer is the value of a variable `answer` if it set
one, else what it printed.

This module runs inside the sandbox (stdlib and pandas only; it must not import the project), except
`inputs_from_csv`, which the host calls to render a CSV grid.
"""
from __future__ import annotations

import errno
import io
import linecache
import os
import socket
import sys
import traceback
from typing import Optional

# The text renderings a program gets as variables (the sandbox's own inputs, not every registered format).
TEXT_INPUTS = ("html", "markdown", "csv")
INPUT_NAMES = TEXT_INPUTS + ("df",)

# errno values that mean "the sandbox withheld it": no such host path, no network, read-only, denied.
_VIOLATION_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENETUNREACH, errno.ECONNREFUSED,
                     errno.EHOSTUNREACH, errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.ENETDOWN}
_OUTPUT_ERRNOS = {errno.EFBIG, errno.ENOSPC, errno.EDQUOT}


def inputs_from_csv(csv_text: str) -> dict:
    """CSV text of a table grid -> the text variables a program gets (host side)."""
    import csv as csv_module

    from generator_py.render.registry import render

    grid = grid_from_rows([list(row) for row in csv_module.reader(io.StringIO(csv_text))])
    return {name: csv_text if name == "csv" else render(grid, name) for name in TEXT_INPUTS}


def grid_from_rows(rows: list[list[str]]):
    """A plain CSV as a cell grid: one cell per field, the first row the column headers."""
    from generator_py.grid.cells import Cell, TableGrid

    cells = [Cell(r + 1, k + 1, 1, 1, "column_header" if r == 0 else ("data" if text else "empty"), text)
             for r, row in enumerate(rows) for k, text in enumerate(row)]
    return TableGrid(tuple(cells), header_rows=1 if rows else 0, header_columns=0)


def check_inputs(table: Optional[dict]) -> dict:
    """The table inputs as sent to a worker: only text variables, named as INPUT_NAMES."""
    table = dict(table or {})
    unknown = sorted(set(table) - set(TEXT_INPUTS))
    if unknown:
        raise ValueError(f"sandbox table inputs: unknown key(s) {unknown}; a program gets html, markdown and csv (df is read from csv)")
    for name, value in table.items():
        if not isinstance(value, str):
            raise ValueError(f"sandbox table input {name!r} must be text, got {type(value).__name__}")
    return table


def namespace_for(table: dict) -> dict:
    """The globals a program starts with."""
    namespace = {"__name__": "__main__", "__builtins__": __builtins__}
    for name in TEXT_INPUTS:
        namespace[name] = table.get(name, "")
    if table.get("csv"):
        import pandas as pd

        namespace["df"] = pd.read_csv(io.StringIO(table["csv"]), header=None, dtype=str, keep_default_na=False)
    else:
        namespace["df"] = None
    return namespace


def answer_text(value) -> str:
    return value if isinstance(value, str) else str(value)


def classify(exc: BaseException) -> tuple[str, str]:
    """An exception the program raised -> (error kind, one-line message)."""
    message = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SyntaxError):
        return "syntax", message
    if isinstance(exc, MemoryError):
        return "memory", message
    if isinstance(exc, (socket.gaierror, socket.herror)):
        return "sandbox_violation", message
    if isinstance(exc, OSError):
        if exc.errno in _OUTPUT_ERRNOS:
            return "output_limit", message
        if exc.errno in _VIOLATION_ERRNOS:
            return "sandbox_violation", message
        if exc.errno == errno.EAGAIN and _from_fork(exc):
            return "sandbox_violation", message + " (process limit)"
    return "runtime", message


def _from_fork(exc: BaseException) -> bool:
    frames = traceback.extract_tb(exc.__traceback__)
    return any(f.name in ("_execute_child", "_launch") or "fork" in (f.line or "") for f in frames[-2:])


class BlockRunner:
    """Runs the code blocks of one program or session in one namespace (the state that persists)."""

    def __init__(self, table: dict):
        self.namespace = namespace_for(table)
        self.pid = os.getpid()

    def run(self, code: str) -> dict:
        """Run one block; what it printed goes to fd 1. Returns answer or error (kind, message, filename)."""
        self.namespace.pop("answer", None)
        printed = io.StringIO()
        real_stdout = sys.stdout
        sys.stdout = _Tee(printed, real_stdout)
        # Registered so tracebacks (in its output, and for `classify`) show the program's lines.
        linecache.cache["<program>"] = (len(code), None, code.splitlines(True), "<program>")
        try:
            compiled = compile(code, "<program>", "exec")
            exec(compiled, self.namespace)
        except BaseException as exc:  # noqa: BLE001 - every failure of model code is a result
            self._leave_if_child()
            kind, message = classify(exc)
            if isinstance(exc, SystemExit) and exc.code in (None, 0):
                kind = None
            if kind is not None:
                sys.stdout = real_stdout
                traceback.print_exception(exc, file=sys.stderr, limit=-3)
                return {"error_kind": kind, "message": message[:500],
                        "filename": getattr(exc, "filename", None) if isinstance(exc, OSError) else None}
        finally:
            self._leave_if_child()
            sys.stdout = real_stdout
            _flush()
        if "answer" in self.namespace:
            return {"answer": answer_text(self.namespace["answer"])}
        return {"answer": printed.getvalue().strip()}

    def _leave_if_child(self) -> None:
        # A child the program forked runs this code too: it must never report or run further blocks.
        if os.getpid() != self.pid:
            _flush()
            os._exit(0)


class _Tee(io.TextIOBase):
    """stdout that keeps what was printed (the answer when `answer` is unset) and passes it on."""

    def __init__(self, keep: io.StringIO, out):
        self.keep, self.out = keep, out

    def write(self, text: str) -> int:
        if self.keep.tell() < (1 << 20):
            self.keep.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
