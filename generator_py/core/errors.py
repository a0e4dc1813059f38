"""Errors that point at the seed row a user has to fix."""
from __future__ import annotations


class SeedError(ValueError):
    """A malformed seed row: the message names the file, the line and the problem."""

    def __init__(self, seed: str, line: int | None, problem: str, context: str = ""):
        where = f"seeds/{seed}.csv"
        if line is not None:
            where += f" line {line}"
        if context:
            where += f" ({context})"
        super().__init__(f"{where}: {problem}")
        self.seed, self.line, self.problem = seed, line, problem
