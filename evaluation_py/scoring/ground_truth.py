"""Ground truth by question id, for responses files whose lines carry none.

Two sources: a built benchmark database (``benchmark_questions``: ``question_id`` -> ``answer_gt``) or a
release ``qaps`` JSON (each question's ``question_id`` -> ``gt``, read by
:func:`generator_py.release.qaps_read.read_qaps`). Errors are :class:`GroundTruthError` naming the file.
"""
from __future__ import annotations

from pathlib import Path
from typing import Union


class GroundTruthError(ValueError):
    """A ground-truth source that cannot be read; the message names the file."""


def ground_truth_from_benchmark(path: Union[str, Path]) -> dict[str, str]:
    """``question_id`` -> ``answer_gt`` of every question of the built database at ``path``."""
    import duckdb

    p = Path(path)
    if not p.is_file():
        raise GroundTruthError(f"{p}: no such database file")
    try:
        con = duckdb.connect(str(p), read_only=True)
    except duckdb.Error as exc:
        raise GroundTruthError(f"{p}: cannot open as a DuckDB database ({exc})") from None
    try:
        rows = con.execute("select question_id, answer_gt from main.benchmark_questions").fetchall()
    except duckdb.Error as exc:
        raise GroundTruthError(f"{p}: no readable benchmark_questions (a built database?): {exc}") from None
    finally:
        con.close()
    return {str(qid): gt for qid, gt in rows if gt is not None}


def ground_truth_from_release(path: Union[str, Path]) -> dict[str, str]:
    """``question_id`` -> ``gt`` of every question of the release ``qaps`` file (or folder) at ``path``."""
    from generator_py.release.qaps_read import read_qaps

    try:
        tables = read_qaps(path)
    except (FileNotFoundError, ValueError) as exc:
        raise GroundTruthError(f"{path}: {exc}" if str(path) not in str(exc) else str(exc)) from None
    return {q.question_id: q.gt for table in tables for q in table.questions}
