"""The leaderboard and pairwise comparisons on planted effects (evaluation_py.analysis.leaderboard)."""
import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis.leaderboard import cluster_interval, clustered_p_value, comparisons, leaderboard


def _scores(values: dict[str, np.ndarray], tables: np.ndarray, left_out: dict | None = None) -> pd.DataFrame:
    rows = []
    for model, v in values.items():
        lo = (left_out or {}).get(model, np.zeros(len(v), bool))
        for i, (x, t) in enumerate(zip(v, tables)):
            rows.append({"model_name": model, "backend": "replay" if model not in ("oracle",) else "oracle",
                         "table_format": "html", "inference_mode": "direct", "scoring_mode": "strict",
                         "metric": "cc", "question_id": f"q{i}", "table_id": t, "value": float(x),
                         "left_out": bool(lo[i])})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def planted():
    rng = np.random.default_rng(7)
    tables = np.repeat([f"t{i}" for i in range(40)], 6)
    strong = (rng.random(len(tables)) < 0.8).astype(float)
    weak = np.where(rng.random(len(tables)) < 0.45, strong, 0.0)  # strong's answers, many lost: ~0.35 lower
    return tables, {"oracle": np.ones(len(tables)), "strong": strong, "twin": strong.copy(), "weak": weak}


def test_oracle_interval_is_one_and_models_ranked(planted):
    tables, values = planted
    board = leaderboard(_scores(values, tables), seed=42).set_index("model_name")
    assert (board.loc["oracle", "mean"], board.loc["oracle", "ci_low"], board.loc["oracle", "ci_high"]) == (1.0, 1.0, 1.0)
    assert board.loc["strong", "mean"] == pytest.approx(values["strong"].mean())
    assert board.loc["strong", "ci_low"] < board.loc["strong", "mean"] < board.loc["strong", "ci_high"]
    assert board.loc["weak", "ci_high"] < board.loc["strong", "ci_low"]
    assert (board["n_questions"] == len(tables)).all() and (board["n_tables"] == 40).all()


def test_the_metrics_of_a_models_group_share_their_resamples(planted):
    tables, values = planted
    cc = _scores({"strong": values["strong"]}, tables)
    both = pd.concat([cc, cc.assign(metric="f1")], ignore_index=True)
    board = leaderboard(both, seed=42).set_index("metric")
    # the same values drawn the same way: the same interval, which a draw of its own per metric would not give
    assert tuple(board.loc["cc", ["ci_low", "ci_high"]]) == tuple(board.loc["f1", ["ci_low", "ci_high"]])
    other = leaderboard(both, seed=43).set_index("metric")
    assert tuple(other.loc["cc", ["ci_low", "ci_high"]]) != tuple(board.loc["cc", ["ci_low", "ci_high"]])


def test_planted_difference_found_with_its_sign_and_twins_differ_by_zero(planted):
    tables, values = planted
    cmp = comparisons(_scores(values, tables), seed=42).set_index(["model_a", "model_b"])
    assert "oracle" not in set(cmp.index.get_level_values(0)) | set(cmp.index.get_level_values(1))
    assert len(cmp) == 3  # strong, twin, weak: three pairs
    sw = cmp.loc[("strong", "weak")]
    assert sw["mean_difference"] == pytest.approx(values["strong"].mean() - values["weak"].mean())
    assert sw["mean_difference"] > 0.2 and sw["ci_low"] > 0 and sw["p_value"] < 0.001
    tw = cmp.loc[("twin", "weak")]
    assert tw["ci_low"] > 0
    st = cmp.loc[("strong", "twin")]
    assert st["mean_difference"] == 0 and st["ci_low"] <= 0 <= st["ci_high"] and st["p_value"] == 1.0
    # BH: the adjusted p values are at least the raw ones, and the largest stays as it is
    assert (cmp["p_value_adjusted"] >= cmp["p_value"] - 1e-12).all()
    assert cmp["p_value_adjusted"].max() == pytest.approx(cmp["p_value"].max())


def test_leaderboard_agrees_on_questions_and_paper_mode_leaves_out():
    tables = np.repeat(["t0", "t1", "t2"], 2)
    scores = _scores({"a": np.array([1, 0, 1, 0, 1, 1.0]), "b": np.array([1, 1, 1, 1, 1, 1.0])}, tables,
                     left_out={"a": np.array([0, 1, 0, 0, 0, 0], bool)})
    scores = scores[~((scores["model_name"] == "b") & (scores["question_id"] == "q5"))]  # b never got q5
    board = leaderboard(scores, seed=1).set_index("model_name")
    assert board.loc["b", "n_questions"] == 5 and board.loc["b", "n_left_out"] == 0
    assert board.loc["a", "n_questions"] == 4 and board.loc["a", "n_left_out"] == 1  # q5 not agreed, q1 left out
    assert board.loc["a", "mean"] == pytest.approx(3 / 4)


def test_cluster_bootstrap_is_wider_than_an_independent_one_for_clustered_data():
    rng = np.random.default_rng(3)
    tables = np.repeat(np.arange(30), 10)
    values = np.repeat(rng.random(30) < 0.5, 10).astype(float)  # every question of a table alike
    _, low, high = cluster_interval(values, tables, 2000, np.random.default_rng(0))
    _, ilow, ihigh = cluster_interval(values, np.arange(len(values)), 2000, np.random.default_rng(0))
    assert (high - low) > 2 * (ihigh - ilow)
    assert clustered_p_value(values - 0.4, tables) > clustered_p_value(values - 0.4, np.arange(len(values)))


def test_same_seed_same_intervals(planted):
    tables, values = planted
    s = _scores(values, tables)
    pd.testing.assert_frame_equal(leaderboard(s, seed=5), leaderboard(s, seed=5))
    assert not leaderboard(s, seed=5)["ci_low"].equals(leaderboard(s, seed=6)["ci_low"])
