"""The release's variants of the paper reading, rule by rule: scoring modes paper-hitab and paper-gpt."""
from __future__ import annotations

import pytest

from evaluation_py.scoring.paper_reading import gpt_values, hitab_values
from evaluation_py.scoring.scores import default_metrics, score_one
from evaluation_py.scoring.scoring_modes import BUILD_SCORING_MODES, SCORING_MODE_READINGS, SCORING_MODES


def f1(response, gt, mode):
    return score_one(response, gt, mode)["f1"]


def test_the_registry_names_each_mode_and_the_build_scores_two():
    assert SCORING_MODES == ("strict", "paper", "paper-hitab", "paper-gpt")
    assert {SCORING_MODE_READINGS[m] for m in ("paper", "paper-hitab", "paper-gpt")} == {"paper"}
    assert BUILD_SCORING_MODES == ("strict", "paper")
    assert default_metrics("paper-hitab") == default_metrics("paper-gpt") == ("precision", "recall", "f1", "cc")


# ---------------------------------------------------------------- paper-hitab
@pytest.mark.parametrize("response, gt, paper, hitab", [
    ("45%", "{45}", 0.0, 1.0),            # every % of the response goes
    ("45% || 12%", "{45} || {12}", 0.0, 1.0),
    ("45%", "{45%}", 1.0, 0.0),           # the gt keeps its own
])
def test_hitab_removes_percent_signs_from_the_response_only(response, gt, paper, hitab):
    assert (f1(response, gt, "paper"), f1(response, gt, "paper-hitab")) == (paper, hitab)


@pytest.mark.parametrize("response, gt, expected", [
    ("-5", "{5}", 1.0),     # exactly one negative: its minus is dropped
    ("5", "{-5}", 1.0),
    ("-5", "{-5}", 1.0),    # both negative: unchanged, equal
    ("-5", "{-6}", 0.0),
    ("-5", "{6}", 0.0),     # dropping the minus does not make other numbers equal
])
def test_hitab_drops_the_minus_of_the_one_negative_number(response, gt, expected):
    assert f1(response, gt, "paper-hitab") == expected
    assert f1("-5", "{5}", "paper") == 0.0


@pytest.mark.parametrize("response, gt, expected", [
    ("0.45", "{45}", 1.0),                  # the response is the fraction
    ("45", "{0.45}", 1.0),                  # the gt is the fraction
    ("0.5", "{50}", 1.0),                   # 50.000000 written 50
    ("0.123", "{12.3}", 1.0),               # no trailing zeros
    ("0.123456789", "{12.345679}", 1.0),    # rounded to 6 decimals
    ("0.123456789", "{12.3456789}", 0.0),
    ("0.01", "{1}", 1.0),                   # 1 counts as "1 or more"
    ("0.45", "{0.45}", 1.0),                # both below 1: unchanged
    ("0.45", "{0.5}", 0.0),
    ("0", "{0}", 1.0),                      # 0 is not strictly between 0 and 1
    ("0", "{100}", 0.0),
    ("-0.45", "{45}", 1.0),                 # the minus goes first, then the fraction scales
    ("0.45%", "{45}", 1.0),                 # % removed, then the number rule
])
def test_hitab_scales_a_fraction_against_a_percentage(response, gt, expected):
    assert f1(response, gt, "paper-hitab") == expected


@pytest.mark.parametrize("response, gt", [
    ("0.45 || x", "{45}"),      # the response is two values
    ("0.45", "{45} || {46}"),   # the gt is two values
    ("0.45x", "{45}"),          # not a plain number
    ("+0.45", "{45}"),
    (".45", "{45}"),
])
def test_hitab_number_rule_needs_one_plain_number_on_each_side(response, gt):
    assert score_one(response, gt, "paper-hitab")["recall"] == 0.0


def test_hitab_values_returns_other_pairs_unchanged():
    r, g = frozenset({"a"}), frozenset({"b"})
    assert hitab_values(r, g) == (r, g)
    assert hitab_values(frozenset({"0.25"}), frozenset({"3"})) == (frozenset({"25"}), frozenset({"3"}))


# ---------------------------------------------------------------- paper-gpt
@pytest.mark.parametrize("values, expected", [
    (["total: 45"], ["total", "45"]),
    (["net income: -3.5"], ["net income", "-3.5"]),
    (["a: 1", "b: 2"], ["a", "1", "b", "2"]),
    (["total:  45"], ["total", "45"]),   # more than one space after the colon
    (["total:45"], ["total:45"]),        # no space after the colon
    (["total : 45"], ["total : 45"]),    # the label ends with a space
    ([" total: 45"], [" total: 45"]),    # ... or begins with one
    (["q1: 45"], ["q1: 45"]),            # a digit in the label
    (["total: 45%"], ["total: 45%"]),    # not a plain number
    (["total: 4.5.1"], ["total: 4.5.1"]),
    (["total: 45", "x"], ["total", "45", "x"]),
])
def test_gpt_splits_label_number_values(values, expected):
    assert gpt_values(values) == expected


def test_gpt_mode_end_to_end():
    assert (f1("Total: 45", "{total | 45}", "paper"), f1("Total: 45", "{total | 45}", "paper-gpt")) == (0.0, 1.0)
    assert f1("Males: 12 || Females: 30", "{males | 12} || {females | 30}", "paper-gpt") == 1.0
    # only the response's values split: a gt written label: number stays one value
    assert (f1("total: 45", "{total: 45}", "paper"), f1("total: 45", "{total: 45}", "paper-gpt")) == (1.0, 0.0)


@pytest.mark.parametrize("mode", ["paper-hitab", "paper-gpt"])
def test_variants_leave_out_what_paper_leaves_out(mode):
    assert score_one("No answer", "{45}", mode)["left_out"] is True
    assert score_one(None, "{45}", mode)["left_out"] is True
    assert score_one("", "{45}", mode)["left_out"] is False


def test_text_metrics_read_the_variant_values():
    out = score_one("0.45", "{45}", "paper-hitab")
    assert out["exact_match"] == 1.0 and out["rouge_l"] == 1.0
    assert score_one("total: 45", "{total | 45}", "paper-gpt")["rouge_l"] == 1.0
