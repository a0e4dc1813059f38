"""Skip a dbt Python model whose inputs did not change: its table is kept, not computed again.

A build with nothing changed should cost what reading its inputs costs, not what computing them costs. A
Python model marked `meta: {memoize: true}` (dbt_project.yml) is wrapped by the project's `py_script_postfix`
(macros/model_memo.sql) in `memoized`. Before the model runs, its *input key* is computed: a sha256 of

- the model's relation and its code (dbt's raw code of the model, and every module of generator_py and
  evaluation_py, with the versions of the libraries that compute and the hctqa plugins installed),
- the configs it reads (the vars dbt hands it, config_dict),
- the content of every relation it refs (the relation's columns and types, its row count and the sum of
  its rows' hashes: a change of any value, row or column changes the key; row order does not).

The build's memo table (`<target schema>.build_memo`, made by the run-start hook) holds, per relation, the
input key of the run that made its table and the table's content key. When the input key is the recorded one
and the table's content still has the recorded key, the model is not called: the table is handed back as it
is (dbt copies it into place). Otherwise the model runs and the new keys are recorded. A model that writes
files (`memoize: files`, its rows' `path` column naming them) is also run again when a file it wrote is gone
or no longer has the size and modification time it had. A `dbt build --full-refresh` runs every memoized
model again.

The content key of a relation is computed once per build: a memoized model records its table's key for the
run (`invocation_id`), so the models reading it do not hash it again, and any other relation's key is kept
in this process for the run (a relation changes only when its own model runs, before every model reading it).
The model's result is what the same inputs would compute (builds are deterministic: same seed and
configuration, byte-identical outputs), so a kept table is the table a new run would make.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

#: The table of the target schema holding the keys (macros/model_memo.sql creates it).
MEMO_TABLE = "build_memo"
#: `memoize: files`: the model writes files, listed in this column of its rows.
FILES_MODE = "files"
_PACKAGES = ("generator_py", "evaluation_py")
_LIBRARIES = ("duckdb", "pandas", "pyarrow", "numpy", "scipy", "sqlglot")
_PLUGIN_GROUP_PREFIX = "hctqa."
_ROW = "__memo_row"  # the alias a relation's rows are hashed under (a name no column of the project has)

_relation_keys: dict[tuple[str, str], str] = {}
_relation_keys_lock = threading.Lock()


def memoized(model: Callable, *, relation: str, schema: str, inputs: Mapping[str, str], config: Mapping[str, Any],
             code_digest: str, invocation: str, mode: Any = True, full_refresh: bool = False) -> Callable:
    """The dbt Python `model` function, wrapped to keep its table when its input key is unchanged (never in a
    --full-refresh run, which records the keys anew)."""
    memo = f"{schema}.{MEMO_TABLE}"
    writes_files = mode == FILES_MODE

    def memoized_model(dbt, session):
        key = input_key(session, memo, relation=relation, inputs=inputs, config=config, code_digest=code_digest,
                        invocation=invocation, database=_database_path(session) if writes_files else None)
        rows = session.execute(f"select input_key, output_key, files_json from {memo} where relation = ?",
                               [relation]).fetchall()
        recorded = rows[0] if rows else None
        if not full_refresh and recorded is not None and recorded[0] == key and content_key(session, relation) == recorded[1] \
                and _files_are(recorded[2]):
            _record(session, memo, relation, key, recorded[1], recorded[2], invocation, reused=True)
            return session.sql(f"select * from {relation}")
        result = model(dbt, session)
        output_key = _result_key(session, relation, result)
        if output_key is not None:
            files = _files_of(result) if writes_files else None
            _record(session, memo, relation, key, output_key, files, invocation, reused=False)
        return result

    return memoized_model


def input_key(session, memo: str, *, relation: str, inputs: Mapping[str, str], config: Mapping[str, Any],
              code_digest: str, invocation: str, database: Optional[str] = None) -> str:
    """The sha256 naming everything a model's table is computed from (module docstring)."""
    parts = {
        "relation": relation,
        "code": code_digest,
        "library": library_digest(),
        "config": config,
        "inputs": {name: relation_key(session, memo, rel, invocation) for name, rel in sorted(inputs.items())},
        "database": database,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=repr).encode()).hexdigest()


def relation_key(session, memo: str, relation: str, invocation: str) -> str:
    """The content key of a relation for this run ("absent" when it does not exist): the key a memoized model
    recorded for its table in this run, else the one computed (once per run and process)."""
    cached = _relation_keys.get((invocation, relation))
    if cached is not None:
        return cached
    rows = session.execute(f"select output_key from {memo} where relation = ? and invocation_id = ?",
                           [relation, invocation]).fetchall()
    key = rows[0][0] if rows else content_key(session, relation)
    with _relation_keys_lock:
        _relation_keys[(invocation, relation)] = key
    return key


def content_key(session, relation: str) -> str:
    """A key of a relation's content: md5 of its columns and types, its row count, the sum of its rows' hashes
    (the formula of macros/model_memo.sql's `memo_content_key`, so a key recorded by either is read by both)."""
    import duckdb

    try:
        columns = session.execute(f"describe {relation}").fetchall()
    except duckdb.CatalogException:
        return "absent"
    (count, total), = session.execute(
        f"select count(*)::varchar, coalesce(sum(hash({_ROW})::hugeint), 0)::varchar from {relation} {_ROW}").fetchall()
    schema = ",".join(f"{name}:{kind}" for name, kind, *_ in columns)
    return hashlib.md5(f"{schema}|{count}|{total}".encode()).hexdigest()


@lru_cache(maxsize=1)
def library_digest() -> str:
    """sha256 of the code every model runs beyond its own: the project's packages' modules, the versions of
    the libraries that compute, and the hctqa plugins installed (entry points and their modules)."""
    digest = hashlib.sha256(sys.version.encode())
    for package in _PACKAGES:
        root = _package_root(package)
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    for library in _LIBRARIES:
        try:
            digest.update(f"{library}={metadata.version(library)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library}=absent".encode())
    for point in sorted(_plugin_entry_points(), key=lambda p: (p.group, p.name, p.value)):
        digest.update(f"{point.group}:{point.name}={point.value}".encode())
        origin = _module_origin(point.module)
        if origin is not None:
            digest.update(origin.read_bytes())
    return digest.hexdigest()


def _package_root(package: str) -> Path:
    import importlib

    return Path(importlib.import_module(package).__file__).parent


def _plugin_entry_points() -> list:
    """Every entry point of an `hctqa.*` group (the registries' plugins: generator_py/core/registry.py)."""
    groups = metadata.entry_points()
    names = groups.groups if hasattr(groups, "groups") else groups.keys()
    return [p for group in sorted(names) if group.startswith(_PLUGIN_GROUP_PREFIX)
            for p in metadata.entry_points(group=group)]


def _module_origin(module: str) -> Optional[Path]:
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin and os.path.isfile(spec.origin) else None


def _record(session, memo: str, relation: str, key: str, output_key: str, files: Optional[str], invocation: str,
            reused: bool) -> None:
    session.execute(f"delete from {memo} where relation = ?", [relation])
    session.execute(f"insert into {memo} values (?, ?, ?, ?, ?, ?)",
                    [relation, key, output_key, files, invocation, reused])


def _result_key(session, relation: str, result) -> Optional[str]:
    """The content key of what the model returned, as the table made from it will have it: dbt-duckdb
    registers the result and selects from it, and so does this (None for a stream of batches, which hashing
    would consume: such a result is not memoized)."""
    if type(result).__name__ == "RecordBatchReader":
        return None
    name = f"__memo_result_{hashlib.sha256(relation.encode()).hexdigest()[:12]}"
    session.register(name, result)
    try:
        return content_key(session, name)
    finally:
        session.unregister(name)


def _database_path(session) -> Optional[str]:
    rows = session.execute("select path from duckdb_databases() where database_name = current_database()").fetchall()
    return rows[0][0] if rows else None


def _files_of(result) -> str:
    """JSON [[path, size, mtime_ns]] of the files a model's rows list in their `path` column."""
    column = result["path"] if hasattr(result, "iloc") else result.column("path")
    paths = sorted(set(column.tolist() if hasattr(column, "tolist") else column.to_pylist()))
    return json.dumps([[p, *_stat(p)] for p in paths])


def _stat(path: str) -> list[int]:
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns]


def _files_are(files_json: Optional[str]) -> bool:
    if files_json is None:
        return True
    for path, size, mtime in json.loads(files_json):
        try:
            if _stat(path) != [size, mtime]:
                return False
        except OSError:
            return False
    return True
