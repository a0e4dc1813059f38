"""Reading the release's `realWorld_HCT_qaps.json` (plain or gzipped): tables, their CSV, questions.

`read_qaps(path)` checks the structure and reads the property values (`properties`); it renders
nothing: `generator_py.release.real_import` lays the tables out as the marts' rows. Bad content raises
ValueError naming the file and the table / question (by id and position).
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from .properties import question_properties_from_release, table_properties_from_release

RELEASE_FILE_NAMES = ("realWorld_HCT_qaps.json", "realWorld_HCT_qaps.json.gz", "realWorld_HCT_qaps.sample.json")


@dataclass(frozen=True)
class ReleaseQuestion:
    question_id: str
    question: str
    gt: str
    properties: dict[str, Any]  # our question property columns -> bool / int / None


@dataclass(frozen=True)
class ReleaseTable:
    table_id: str
    csv: str  # the release's CSV, index row and column included
    properties: dict[str, bool]  # our table property columns -> bool
    questions: tuple[ReleaseQuestion, ...]


def resolve_release_file(path: Union[str, Path]) -> Path:
    """A folder holding the release file (plain or gzipped), or the file itself."""
    p = Path(path)
    if p.is_dir():
        for name in RELEASE_FILE_NAMES:
            if (p / name).is_file():
                return p / name
        raise FileNotFoundError(f"no {' / '.join(RELEASE_FILE_NAMES)} in {p}")
    if p.is_file():
        return p
    raise FileNotFoundError(f"release file or folder not found: {p}")


def _read_json(file: Path) -> Any:
    try:
        if file.name.endswith(".gz"):
            with gzip.open(file, "rt", encoding="utf-8") as fh:
                return json.load(fh)
        with open(file, encoding="utf-8") as fh:
            return json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError, OSError, EOFError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise ValueError(f"{file}: not a JSON file ({exc})") from exc


def _object_with(value: Any, keys: tuple[str, ...], where: str, id_key: str) -> dict:
    """`value` as a JSON object holding `keys`; the error names `where` (and the id when given)."""
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected an object, got {type(value).__name__}")
    for key in keys:
        if key not in value:
            given = value.get(id_key)
            raise ValueError(f"{where}{f' ({given})' if given else ''}: missing {key!r}")
    return value


def _read_question(q: Any, q_index: int, table_where: str) -> ReleaseQuestion:
    q = _object_with(q, ("question_id", "question", "gt"), f"{table_where}: question #{q_index}", "question_id")
    where = f"{table_where}: question {q['question_id']} (#{q_index})"
    try:
        props = question_properties_from_release(q.get("question_properties") or {})
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from exc
    return ReleaseQuestion(str(q["question_id"]), str(q["question"]), str(q["gt"]), props)


def _read_table(table: Any, t_index: int, file: Path) -> ReleaseTable:
    table = _object_with(table, ("table_id", "table_info", "questions"), f"{file}: table #{t_index}", "table_id")
    table_id = str(table["table_id"])
    where = f"{file}: table {table_id} (#{t_index})"
    info = table["table_info"]
    if not isinstance(info, dict):
        raise ValueError(f"{where}: table_info is not an object")
    csv_text = (info.get("table_formats") or {}).get("csv")
    if not isinstance(csv_text, str) or not csv_text.strip():
        raise ValueError(f"{where}: missing table_info.table_formats.csv")
    props = info.get("table_properties")
    if not isinstance(props, dict):
        raise ValueError(f"{where}: missing table_info.table_properties")
    try:
        table_props = table_properties_from_release(props)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from exc
    questions = table["questions"]
    if not isinstance(questions, list):
        raise ValueError(f"{where}: questions is not a list")
    read = tuple(_read_question(q, i, where) for i, q in enumerate(questions))
    return ReleaseTable(table_id, csv_text, table_props, read)


def read_qaps(path: Union[str, Path]) -> list[ReleaseTable]:
    """The release file's tables in file order (table ids unique).

    Raises FileNotFoundError when `path` does not exist (or a folder lacks the file), ValueError
    (naming the file and the offending table / question) for malformed content.
    """
    file = resolve_release_file(path)
    data = _read_json(file)
    if not isinstance(data, list):
        raise ValueError(f"{file}: expected a JSON list of tables, got {type(data).__name__}")
    tables: list[ReleaseTable] = []
    seen: set[str] = set()
    for t_index, raw in enumerate(data):
        table = _read_table(raw, t_index, file)
        if table.table_id in seen:
            raise ValueError(f"{file}: table {table.table_id} (#{t_index}): duplicate table_id")
        seen.add(table.table_id)
        tables.append(table)
    return tables
