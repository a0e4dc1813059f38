"""The benchmark's own sampling noise (evaluation_py.analysis.seed_variance): the seeds' fingerprints, their
leaderboards in the prediction store, the spread between seeds beside one build's interval, and `hctqa seeds`."""
import json
import math

import numpy as np
import pandas as pd
import pytest

from evaluation_py.analysis.seed_variance import (SEED_VARIANCE_COLUMNS, MissingSeeds, as_arrow, detectable_difference,
                                                  plot_seed_variance, seed_leaderboards, seed_variance,
                                                  seeds_for_difference)
from evaluation_py.cli import main as cli_main, seed_database
from evaluation_py.running.results import ResultsIndex
from generator_py.dbt_glue.build_config import build_fingerprint, check_vars, config_frame, fingerprint_for_seed
from generator_py.dbt_glue.vars import counterfactuals_var, paraphrases_var, seed_variance_seeds_var

DIGESTS = {"nl_templates": "abc", "table_templates": "def", "release": None}


def _config(seed=42, **raw):
    checked = check_vars({"seed": str(seed), **raw})
    return config_frame(checked, build_fingerprint(checked, DIGESTS), DIGESTS).iloc[0]


def test_the_fingerprint_of_another_seed_is_that_builds_own():
    main = _config(42, replicas="1")
    for seed in (1, 7):
        assert fingerprint_for_seed(main, seed) == _config(seed, replicas="1")["build_fingerprint"]
    assert fingerprint_for_seed(main, 42) == main["build_fingerprint"]
    assert len({fingerprint_for_seed(main, s) for s in (1, 2, 3)}) == 3
    # the seeds compared shape no benchmark: the var leaves the fingerprint as it is
    assert _config(42, replicas="1", seed_variance_seeds="[1, 2]")["build_fingerprint"] == main["build_fingerprint"]


def test_the_opt_in_vars_change_the_fingerprint_only_when_on():
    plain = _config()["build_fingerprint"]
    assert _config(layout_counterfactuals="0")["build_fingerprint"] == plain
    assert _config(paraphrase_sets="False")["build_fingerprint"] == plain
    assert _config(layout_counterfactuals="20")["build_fingerprint"] != plain
    assert _config(paraphrase_sets="True")["build_fingerprint"] != plain


@pytest.mark.parametrize("check, raw, message", [
    (counterfactuals_var, "-1", "layout_counterfactuals must be an integer >= 0"),
    (counterfactuals_var, "'many'", "layout_counterfactuals must be an integer >= 0"),
    (paraphrases_var, "'yes'", "paraphrase_sets must be true or false"),
    (seed_variance_seeds_var, "[1]", "seed_variance_seeds must be a list of two or more distinct integer seeds"),
    (seed_variance_seeds_var, "[1, 1]", "two or more distinct"),
    (seed_variance_seeds_var, "3", "two or more distinct"),
])
def test_bad_vars_are_named(check, raw, message):
    with pytest.raises(ValueError, match=message):
        check(raw)
    assert (counterfactuals_var(None), paraphrases_var(None), seed_variance_seeds_var(None)) == (0, False, [])


def _board(model, mean, half=0.05, fmt="html"):
    return {"model_name": model, "backend": "replay", "table_format": fmt, "inference_mode": "direct",
            "scoring_mode": "strict", "metric": "f1", "mean": mean, "ci_low": mean - half, "ci_high": mean + half,
            "n_questions": 100, "n_tables": 20, "n_left_out": 0}


def test_leaderboards_are_kept_per_fingerprint_and_leave_with_their_model(tmp_path):
    store = tmp_path / "predictions.sqlite"
    with ResultsIndex(store) as index:
        index.record_leaderboard("fa", pd.DataFrame([_board("m", 0.5), _board("n", 0.4)]), "r1")
        index.record_leaderboard("fa", pd.DataFrame([_board("m", 0.6)]), "r2")  # replaces m's row only
        index.record_leaderboard("fb", pd.DataFrame([_board("m", 0.7)]), "r3")
        got = index.leaderboards(["fa", "fb", "fc"])
        assert sorted(zip(got["fingerprint"], got["model_name"], got["mean"])) == [
            ("fa", "m", 0.6), ("fa", "n", 0.4), ("fb", "m", 0.7)]
        index.remove_models("fa", ["n"])
        assert list(index.leaderboards(["fa"])["model_name"]) == ["m"]


def test_the_spread_between_seeds_stands_beside_the_within_build_interval():
    means = {1: 0.50, 2: 0.56, 3: 0.53}
    recorded = pd.DataFrame([{**_board("m", v, half=0.02), "fingerprint": f"f{s}"} for s, v in means.items()]
                            + [{**_board("steady", 0.8), "fingerprint": f"f{s}"} for s in means]
                            + [{**_board("once", 0.3), "fingerprint": "f1"}])
    boards = seed_leaderboards(recorded, {1: "f1", 2: "f2", 3: "f3"})
    out = seed_variance(boards, [1, 2, 3]).set_index("model_name")
    assert list(out.reset_index().columns) == SEED_VARIANCE_COLUMNS
    assert "once" not in out.index  # not evaluated on every seed
    sd = float(np.std(list(means.values()), ddof=1))
    assert out.at["m", "sd_between_seeds"] == pytest.approx(sd)
    assert (out.at["m", "min"], out.at["m", "max"], out.at["m", "mean"]) == pytest.approx((0.50, 0.56, 0.53))
    assert out.at["m", "within_build_half_width"] == pytest.approx(0.02)
    assert out.at["m", "sd_to_within_se"] == pytest.approx(sd / (0.02 / 1.959963984540054))
    assert out.at["m", "detectable_difference"] == pytest.approx(2.8016 * sd * math.sqrt(2 / 3), rel=1e-3)
    assert out.at["steady", "sd_between_seeds"] == 0.0 and out.at["m", "seeds"] == [1, 2, 3]
    with pytest.raises(MissingSeeds, match=r"seed\(s\) 4 \(fingerprint f4\).*hctqa seeds"):
        seed_leaderboards(recorded, {1: "f1", 4: "f4"})


def test_seeds_for_a_difference_grow_with_the_noise_and_shrink_with_the_difference():
    assert seeds_for_difference(0.02, 0.02) == 16  # 2 x 2.8^2 = 15.7
    assert seeds_for_difference(0.02, 0.01) == 63
    assert seeds_for_difference(0.001, 0.05) == 2  # never fewer than two
    assert detectable_difference(0.02, 16) <= 0.02 < detectable_difference(0.02, 15)
    with pytest.raises(ValueError):
        seeds_for_difference(0.02, 0)


def test_the_figure(tmp_path):
    boards = seed_leaderboards(pd.DataFrame([{**_board("m", v), "fingerprint": f"f{s}"}
                                             for s, v in ((1, 0.5), (2, 0.6))]), {1: "f1", 2: "f2"})
    out = seed_variance(boards, [1, 2])
    assert plot_seed_variance(out, tmp_path).endswith("seed_variance.png")
    assert plot_seed_variance(out.iloc[:0], tmp_path) is None
    # the mart keeps its column types with no row (a build without the var)
    assert as_arrow(seed_variance(pd.DataFrame(), [])).schema == as_arrow(out).schema.remove_metadata()


def test_hctqa_seeds_refuses_bad_arguments_before_any_build(tmp_path, capsys):
    (tmp_path / "dbt_project.yml").write_text("name: x\n")
    for argv, message in ((["seeds", "1"], "two or more distinct seeds"),
                          (["seeds", "1", "1"], "two or more distinct seeds"),
                          (["seeds", "1", "2", "--vars", "{seed: 3}"], "--vars sets seed"),
                          (["seeds", "1", "2", "--vars", "[1]"], "--vars must be a YAML mapping"),
                          (["seeds", "1", "x"], "invalid int value")):
        assert cli_main([*argv, "--project-dir", str(tmp_path)]) == 2
        assert message in capsys.readouterr().err
    assert cli_main(["seeds", "1", "2", "--project-dir", str(tmp_path / "none")]) == 2
    assert "not a dbt project" in capsys.readouterr().err
    assert seed_database(tmp_path / "run.duckdb", 7) == tmp_path / "run_seed7.duckdb"
