"""The leaderboard's means and their table-resampling bootstrap intervals."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.analysis.leaderboard import LEADERBOARD_COLUMNS, leaderboard


def _scores(model, values_by_table, backend="openai", scoring_mode="strict", left_out=None):
    rows = []
    for t, values in values_by_table.items():
        for i, v in enumerate(values):
            rows.append({"model_name": model, "backend": backend, "table_format": "html", "inference_mode": "direct",
                         "scoring_mode": scoring_mode, "metric": "f1", "question_id": f"{t}--q{i:02d}",
                         "table_id": t, "value": v, "left_out": bool(left_out and (t, i) in left_out)})
    return pd.DataFrame(rows)


def test_the_oracle_interval_is_one_to_one():
    board = leaderboard(_scores("oracle", {f"t{k}": [1.0] * 3 for k in range(10)}, backend="oracle"))
    assert list(board.columns) == LEADERBOARD_COLUMNS
    assert board[["mean", "ci_low", "ci_high", "n_questions", "n_tables"]].values.tolist() == [[1.0, 1.0, 1.0, 30, 10]]


def test_tables_are_resampled_whole_not_questions():
    # One table: resampling tables draws it every time, so the interval has no width, however its
    # questions vary (a bootstrap over questions would give a wide interval here).
    one = leaderboard(_scores("m", {"t1": [0.0, 1.0] * 20}))
    assert one[["mean", "ci_low", "ci_high"]].values.tolist() == [[0.5, 0.5, 0.5]]
    # The same 40 answers spread over 40 tables: now the draws vary.
    many = leaderboard(_scores("m", {f"t{k}": [float(k % 2)] for k in range(40)}))
    low, high = many[["ci_low", "ci_high"]].values[0]
    assert low < 0.5 < high and high - low > 0.2


def test_table_clustering_widens_the_interval_of_correlated_questions():
    # 20 tables of 5 questions: right or wrong per table (correlated) versus alternating within each table
    clustered = leaderboard(_scores("m", {f"t{k}": [float(k % 2)] * 5 for k in range(20)}))
    mixed = leaderboard(_scores("m", {f"t{k}": [0.0, 1.0, 0.0, 1.0, 0.5] for k in range(20)}))
    width = lambda b: float(b.ci_high.iloc[0] - b.ci_low.iloc[0])  # noqa: E731
    assert clustered["mean"].iloc[0] == mixed["mean"].iloc[0] == 0.5
    assert width(clustered) > 0.2 and width(mixed) == 0.0


def test_a_row_does_not_depend_on_the_other_models_and_is_deterministic():
    a = _scores("a", {f"t{k}": [k / 10, 1 - k / 10] for k in range(10)})
    b = _scores("b", {f"t{k}": [0.3] for k in range(5)})
    alone = leaderboard(a)
    together = leaderboard(pd.concat([b, a], ignore_index=True))
    assert together[together.model_name == "a"].reset_index(drop=True).equals(alone)
    assert leaderboard(a).equals(alone)


def test_paper_mode_leaves_out_what_it_leaves_out_and_counts_it():
    s = _scores("m", {"t1": [1.0, 0.0, 1.0], "t2": [1.0]}, scoring_mode="paper", left_out={("t1", 1)})
    row = leaderboard(s).iloc[0]
    assert (row["mean"], row["n_questions"], row["n_left_out"]) == (1.0, 3, 1)


def test_obfuscated_twins_are_not_in_the_mean():
    s = _scores("m", {"t1": [1.0, 0.0]})
    variants = pd.DataFrame({"question_id": ["t1--q00", "t1--q01"], "variant": ["original", "obfuscated"]})
    assert leaderboard(s, variants)["mean"].tolist() == [1.0]
    assert leaderboard(s.iloc[0:0]).empty and list(leaderboard(s.iloc[0:0]).columns) == LEADERBOARD_COLUMNS


@pytest.mark.parametrize("n_tables", [3, 30])
def test_the_interval_holds_the_mean(n_tables):
    s = _scores("m", {f"t{k}": [((k * 7) % 10) / 10, 0.5] for k in range(n_tables)})
    row = leaderboard(s).iloc[0]
    assert row.ci_low <= row["mean"] <= row.ci_high
