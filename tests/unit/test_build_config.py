"""Vars checked with the var named, the build fingerprint, and where a build's output folders go."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from generator_py.dbt_glue.build_config import build_fingerprint, check_vars, frame_digest, output_dir
from generator_py.dbt_glue.vars import domains_var, replicas_var, scale_options, seed_var, share_var

KNOWN = ["accidents", "weather"]


# Vars reach Python models rendered as text, so each case is given as dbt renders it.
@pytest.mark.parametrize("read, raw, message", [
    (seed_var, "abc", "var seed must be an integer, got 'abc'"),
    (seed_var, "7.9", "var seed must be an integer, got 7.9"),
    (seed_var, "None", "var seed must be an integer, got None"),
    (seed_var, "True", "var seed must be an integer, got True"),
    *((replicas_var, raw, "var replicas must be an integer >= 1") for raw in ("0", "-1", "2.5", "many", "False")),
    *((lambda raw: domains_var(raw, KNOWN), raw, "var domains must be a non-empty list")
      for raw in ("[]", "[1, 2]", "{'a': 1}")),
    (lambda raw: domains_var(raw, KNOWN), "['accidents', 'atlantis']",
     "var domains names unknown domain(s) ['atlantis']; known: ['accidents', 'weather']"),
    *((lambda raw: share_var("max_failed_request_share", raw, 0.05), raw,
       "var max_failed_request_share must be a number between 0 and 1") for raw in ("1.5", "-0.1", "'lots'", "True")),
])
def test_bad_var_is_refused_naming_it(read, raw, message):
    with pytest.raises(ValueError) as info:
        read(raw)
    assert str(info.value).startswith(message), str(info.value)


def test_good_vars_pass():
    assert seed_var("42") == 42 and seed_var(7) == 7
    assert replicas_var("None") is None and replicas_var("3") == 3  # unset: the templates' own replicas
    assert scale_options("2", "['weather']") == {"replicas": 2, "domains": ["weather"]}
    assert domains_var("None", KNOWN) is None
    assert domains_var("weather", KNOWN) == ["weather"]
    assert domains_var("['weather', 'accidents']", KNOWN) == ["weather", "accidents"]


def test_check_vars_names_each_bad_var():
    good = {"seed": "42", "replicas": "None", "domains": "None", "cross_check": "False",
            "max_failed_request_share": "0.05", "hctqa_release_dir": "None", "eval_cache_dir": "cache",
            "exports_dir": "None", "reports_dir": "None"}
    checked = check_vars(good, KNOWN)
    assert checked["seed"] == 42 and checked["max_failed_request_share"] == 0.05 and checked["domains"] is None
    assert checked["question_variety"] == "paper"  # unset: Table III as written
    assert check_vars({**good, "question_variety": "extended"}, KNOWN)["question_variety"] == "extended"
    for var, bad in (("seed", "abc"), ("seed", "7.9"), ("replicas", "0"), ("replicas", "-1"), ("domains", "[]"),
                     ("domains", "['atlantis']"), ("cross_check", "'yes'"), ("max_failed_request_share", "2"),
                     ("exports_dir", "5"), ("question_variety", "wide")):
        with pytest.raises(ValueError, match=f"var {var} "):
            check_vars({**good, var: bad}, KNOWN)


# ------------------------------------------------------------------ fingerprint
CHECKED = {"seed": 42, "replicas": None, "domains": ["weather", "accidents"]}
DIGESTS = {"table_templates": "aa", "release": None}


def test_fingerprint_is_stable_and_follows_what_shapes_the_benchmark():
    fp = build_fingerprint(CHECKED, DIGESTS)
    assert len(fp) == 16 and fp == build_fingerprint(dict(CHECKED), dict(DIGESTS))
    assert build_fingerprint({**CHECKED, "domains": ["accidents", "weather"]}, DIGESTS) == fp  # order does not shape it
    for changed in ({"seed": 7}, {"replicas": 2}, {"domains": ["weather"]}, {"question_variety": "extended"}):
        assert build_fingerprint({**CHECKED, **changed}, DIGESTS) != fp, changed
    assert build_fingerprint(CHECKED, {**DIGESTS, "table_templates": "ab"}) != fp
    assert build_fingerprint(CHECKED, {**DIGESTS, "release": "cd"}) != fp


def test_frame_digest_ignores_row_and_column_order_but_not_content():
    a = pd.DataFrame({"x": [1, 2], "y": ["a", "b"]})
    assert frame_digest(a) == frame_digest(a.iloc[::-1])
    assert frame_digest(a) == frame_digest(a[["y", "x"]])  # seeds load by column name
    assert frame_digest(a) != frame_digest(a.assign(y=["a", "c"]))
    assert frame_digest(a) != frame_digest(a.rename(columns={"y": "z"}))  # a renamed column is another input


# ------------------------------------------------------------------ output folders
def test_output_folders_follow_the_database(tmp_path):
    assert output_dir("None", tmp_path / "hctqa.duckdb", "exports") == tmp_path / "exports"
    assert output_dir("None", tmp_path / "other.duckdb", "exports") == tmp_path / "other_exports"
    assert output_dir("None", tmp_path / "other.duckdb", "reports") == tmp_path / "other_reports"
    assert output_dir("None", tmp_path / "b.duckdb", "reports") != output_dir("None", tmp_path / "c.duckdb", "reports")
    assert output_dir("out/x", tmp_path / "other.duckdb", "exports") == Path("out/x")
    assert output_dir(None, None, "reports") == Path("reports")
