"""What identifies one evaluation run (one `dbt build` or one direct call) and the facts recorded about it.

A run's id is `HCTQA_RUN_ID` when set, else dbt's invocation id (inside dbt every model of one
`dbt build` shares it), else one id per process. The store stamps every answer and error it
writes with it, so each prediction row names the run that produced it.
"""
from __future__ import annotations

import json
import os
import subprocess
import uuid
from importlib import metadata
from pathlib import Path
from typing import Optional

from ..configuration.redaction import redact_entry

_PROCESS_RUN_ID = uuid.uuid4().hex
# The packages whose versions shape answers or scores (those installed are recorded).
VERSIONED_PACKAGES = ("hctqa-factory", "dbt-core", "dbt-duckdb", "duckdb", "openai", "llama-cpp-python", "vllm")


def current_run_id() -> str:
    if os.environ.get("HCTQA_RUN_ID"):
        return os.environ["HCTQA_RUN_ID"]
    try:
        from dbt_common.invocation import get_invocation_id

        inside_dbt = get_invocation_id()
    except Exception:  # noqa: BLE001 - not inside dbt (or an older dbt): fall back to our own id
        inside_dbt = None
    return str(inside_dbt or _PROCESS_RUN_ID)


def package_versions() -> dict[str, str]:
    out = {}
    for name in VERSIONED_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def git_commit(folder: Path) -> Optional[str]:
    """The commit checked out in `folder` (None outside a git checkout or without git)."""
    try:
        proc = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def entries_json(entries: list[dict]) -> str:
    """The entries as recorded (eval_runs, the results file): secrets masked as in every message
    (configuration.redaction: secret-named keys, token-like text, credentials in a URL)."""
    return json.dumps(redact_entry(entries), sort_keys=True, ensure_ascii=False, default=str)
