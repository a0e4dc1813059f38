"""Every SQL example of the README runs against a CI-scale build and returns one row per model."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
# the per-model keys an example's rows may be split by (an entry asks for formats and modes)
MODEL_KEYS = ("model_name", "table_format", "inference_mode", "run_id")


def readme_statements() -> list[tuple[str, str]]:
    """(the comments above it, the statement) of every statement in the README's ```sql blocks; a
    statement ends with a line ending in `;` (a comment may hold one)."""
    out = []
    for block in re.findall(r"```sql\n(.*?)```", README.read_text(), flags=re.S):
        comments, sql = [], []
        for line in block.splitlines():
            if line.strip().startswith("--"):
                comments.append(line.strip())
                continue
            sql.append(line)
            if line.rstrip().endswith(";"):
                out.append((" ".join(comments), "\n".join(sql).strip().rstrip(";")))
                comments, sql = [], []
    return out


STATEMENTS = readme_statements()


def test_the_readme_has_its_examples():
    tables = {re.search(r"\bfrom\s+(\w+)", sql).group(1) for _, sql in STATEMENTS}
    assert {"eval_leaderboard", "eval_summary", "eval_model_comparisons", "eval_runs",
            "analysis_property_regression", "analysis_obfuscation_gap"} <= tables
    # strict, the default scoring mode, is named wherever a mart has both
    for _, sql in STATEMENTS:
        if re.search(r"\bfrom\s+(eval_leaderboard|eval_summary|eval_model_comparisons|analysis_obfuscation_gap)\b", sql):
            assert "scoring_mode = 'strict'" in sql, sql


@pytest.mark.parametrize("comment, sql", STATEMENTS, ids=[f"example{i + 1}" for i in range(len(STATEMENTS))])
def test_readme_example_returns_one_row_per_model(ci_db, comment, sql):
    cursor = ci_db.execute(sql)
    columns = [d[0] for d in cursor.description]
    rows = cursor.fetchall()
    if "empty until" in comment:  # says which entry fills it; a default build has none
        assert rows == []
        return
    if "model_a" in columns:  # pairs of models under test: the default build has the baselines only
        assert rows == []
        return
    assert rows, sql
    keys = [c for c in MODEL_KEYS if c in columns]
    if "from build_status" in sql:  # about the build, not per model: its one row
        assert len(rows) == 1 and rows[0][columns.index("state")] == "complete", rows
        return
    if "from build_memo" in sql:  # about the build's tables, not per model: one row per memoized relation
        assert len({row[columns.index("relation")] for row in rows}) == len(rows), rows
        return
    assert "model_name" in keys
    per_model = Counter(tuple(row[columns.index(k)] for k in keys) for row in rows)
    assert max(per_model.values()) == 1, (sql, per_model.most_common(3))
    models = {row[columns.index("model_name")] for row in rows}
    assert models <= {"oracle", "header_match"} and "header_match" in models
