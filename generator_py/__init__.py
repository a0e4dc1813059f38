"""Synthetic human-centric table (HCT) and question generator (no dbt imports)."""

from .core import fork_safety as _fork_safety  # noqa: E402,F401  (every fork waits for imports and pyarrow's set-up)
