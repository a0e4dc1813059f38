"""The project's own files as a test copies them: the repository without what a build, a venv or git leaves.
Standard library only: the dbt fork server imports it as a script's neighbour, before dbt."""
from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPY_IGNORE = shutil.ignore_patterns(".venv", "target", "logs", "*.duckdb", "*.duckdb.wal", "exports", "reports",
                                     "cache", ".git", "__pycache__", ".pytest_cache", "*.egg-info", "dbt_packages")


def copy_project(dest: Path) -> Path:
    shutil.copytree(ROOT, dest, ignore=COPY_IGNORE)
    return dest
