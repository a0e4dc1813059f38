"""HCT-QA scoring: the release's published numbers, each paper-mode and strict-mode rule, the CLI."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

from evaluation_py.scoring import cli as score_cli
from evaluation_py.backends.oracle_backend import gt_to_answer
from evaluation_py.scoring.paper_reading import clean_response, is_left_out, response_values
from evaluation_py.scoring.scores import dataset_of, score_frame, score_one, summarize
from evaluation_py.scoring.strict_reading import answer_part, parse_number, read_gt, read_response
from generator_py.release.gt import gt_value_list, gt_values

ROOT = Path(__file__).resolve().parents[2]
GEMMA = "responses--gemma-2-9b-it--realHCTs.sample.jsonl"
METRICS = ("precision", "recall", "f1", "cc")

# The table of the reference sample's README: (n, left_out, precision, recall, f1, cc). Its "strict" row is
# the release's rules with the left-out responses counted as 0 (not this project's strict mode).
RELEASE_PAPER = (194, 9, 0.3969, 0.3924, 0.3706, 0.2757)
RELEASE_LEFT_OUT_AS_ZERO = (194, 0, 0.3785, 0.3742, 0.3534, 0.2629)
RELEASE_PAPER_BY_DATASET = {
    "psa": (93, 0.4182, 0.4138, 0.3870, 0.2907),
    "arxiv": (27, 0.1605, 0.1442, 0.1327, 0.1111),
    "census": (16, 0.1429, 0.1905, 0.1599, 0.1429),
    "pak": (58, 0.5367, 0.5250, 0.5080, 0.3621),
}
LEFT_OUT_BY_DATASET = {"psa": 7, "arxiv": 0, "census": 2, "pak": 0}  # the 9 "No Answer" responses
# This project's strict mode on the same file (measured; it reads two "x ||" answers as one value each).
STRICT = (194, 0, 0.3854, 0.3752, 0.3573, 0.2629)
STRICT_UNANSWERED = 14  # 9 "No Answer" and 5 empty responses


@pytest.fixture(scope="module")
def gemma_path(real_sample_dir) -> Path:
    return real_sample_dir / GEMMA


@pytest.fixture(scope="module")
def gemma(gemma_path) -> pd.DataFrame:
    df = pd.read_json(gemma_path, lines=True, dtype=False)
    df["dataset"] = df["qap_id"].map(dataset_of)
    return df


def _run_cli(*args: str) -> subprocess.CompletedProcess:
    """The CLI as a separate process, exactly as a user runs it."""
    return subprocess.run([sys.executable, "-m", "evaluation_py.scoring", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def _call_cli(capsys, *args: str) -> subprocess.CompletedProcess:
    """The CLI's main() in this process (fast); same shape of result as _run_cli."""
    rc = score_cli.main(list(args))
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), rc, captured.out, captured.err)


def _row(summary_row) -> tuple:
    return (int(summary_row["n"]), int(summary_row["left_out"]),
            *[round(float(summary_row[m]), 4) for m in METRICS])


def _paper(response, gt) -> tuple:
    s = score_one(response, gt, "paper")
    return s["precision"], s["recall"], s["f1"], s["cc"]


def _strict(response, gt) -> tuple:
    s = score_one(response, gt, "strict")
    return s["precision"], s["recall"], s["f1"], s["cc"]


# ---------------------------------------------------------------- the release's numbers on the sample

def test_paper_mode_reproduces_the_release(gemma):
    assert _row(summarize(score_frame(gemma, scoring_mode="paper")).iloc[0]) == RELEASE_PAPER
    res = summarize(score_frame(gemma, scoring_mode="paper"), ["dataset"]).set_index("dataset")
    assert set(res.index) == set(RELEASE_PAPER_BY_DATASET)
    for ds, (n, *means) in RELEASE_PAPER_BY_DATASET.items():
        assert int(res.loc[ds, "n"]) == n and int(res.loc[ds, "left_out"]) == LEFT_OUT_BY_DATASET[ds], ds
        assert [round(float(res.loc[ds, m]), 4) for m in METRICS] == means, ds


def test_release_rules_with_left_out_counted_as_zero(gemma):
    scored = score_frame(gemma, scoring_mode="paper").assign(left_out=False)
    assert _row(summarize(scored).iloc[0]) == RELEASE_LEFT_OUT_AS_ZERO


def test_strict_mode_on_the_sample(gemma):
    row = summarize(score_frame(gemma, scoring_mode="strict")).iloc[0]
    assert _row(row) == STRICT
    assert int(row["unanswered"]) == STRICT_UNANSWERED


def test_score_one_agrees_with_score_frame(gemma):
    for mode in ("paper", "strict"):
        scored = score_frame(gemma, scoring_mode=mode)
        for (_, row), resp, gt in zip(scored.iterrows(), gemma["response"], gemma["gt"]):
            one = score_one(resp, gt, mode)
            assert (one["left_out"], one["unanswered"]) == (row["left_out"], row["unanswered"])
            assert [one[m] for m in METRICS] == pytest.approx([row[m] for m in METRICS], abs=1e-12)


@pytest.mark.parametrize("mode,expected", [("paper", RELEASE_PAPER), ("strict", STRICT)])
def test_reference_cli(gemma_path, mode, expected):
    proc = _run_cli(str(gemma_path), "--scoring-mode", mode, "--by", "dataset")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["scoring_mode"] == mode
    assert (out["n"], out["left_out"], *[out[m] for m in METRICS]) == expected
    assert out["unanswered"] == STRICT_UNANSWERED
    assert set(out["groups"]) == set(RELEASE_PAPER_BY_DATASET)
    if mode == "paper":
        for ds, (gn, *gmeans) in RELEASE_PAPER_BY_DATASET.items():
            g = out["groups"][ds]
            assert (g["n"], g["left_out"], *[g[m] for m in METRICS]) == (gn, LEFT_OUT_BY_DATASET[ds], *gmeans), ds


def test_cli_default_mode_is_strict(gemma_path):
    proc = _run_cli(str(gemma_path))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "groups" not in out
    assert out["scoring_mode"] == "strict" and out["f1"] == STRICT[4]
    assert "strict (the default)" in " ".join(_run_cli("--help").stdout.split())


def test_oracle_answers_score_one_on_the_release_gts(gemma):
    for mode in ("paper", "strict"):
        scored = score_frame(pd.DataFrame({"response": gemma["gt"].map(gt_to_answer), "gt": gemma["gt"]}), scoring_mode=mode)
        assert scored["f1"].eq(1.0).all() and scored["cc"].eq(1).all(), mode


# ---------------------------------------------------------------- paper mode: the release's rules, one by one

@pytest.mark.parametrize("response,left_out", [
    (None, True), (float("nan"), True), ("No Answer", True), ("  no answer, the table is empty", True),
    ("ERROR: 500", True), ("errors: 3", True),
    # only the raw response's start counts: a marker or code fence in front keeps it in
    ("Answer: no answer", False), ("```no answer```", False), ("", False), ("The answer: no answer", False),
])
def test_paper_left_out(response, left_out):
    assert is_left_out(response) is left_out
    s = score_one(response, "{x}", "paper")
    assert s["left_out"] is left_out
    if left_out:
        assert _paper(response, "{x}") == (0.0, 0.0, 0.0, 0)


@pytest.mark.parametrize("raw,cleaned", [
    ("  Dune || KAZAN  ", "dune || kazan"),                      # lower-case and strip
    ("17<eos_token>18", "17"),                                   # every marker cuts ...
    ("17 #input x", "17"), ("17 # input x", "17"), ("17 # solution: x", "17"), ("17 #solution x", "17"),
    ("17 # explanation: x", "17"), ("17 #explanation x", "17"), ("17 NOTE: x", "17"), ("17 Table: x", "17"),
    ("note: 17", ""),                                            # ... also at the very start
    ("17 || 4 note: x table: y", "17 || 4"),                    # at the FIRST marker
    ("answer: 17", "17"), ("ANSWER = 17", "17"), ("answer :\t17", "17"),
    ("17, answer: 18", "17, 18"),                                # the deletion is everywhere ...
    ("answer:17 || answer= 18", "17 || 18"),                     # ... and every time
    ("nanswerable", "nanswerable"),                              # no ':' or '=': nothing deleted
    # p is measured before the deletion (10 characters): the cut lands after the marker
    ("answer: 5 note: 1234", "5 note: 12"),
    ("7\n\n8", "7"), ("7\n \n8", "7 8"),                           # only a literal blank line cuts
    ("7\n```\nlater", "7"), ("```\n7 || 8\n```", "7 || 8"),        # then the first "\n```\n"
    ("7 ||\n8", "7 ||8"), ("`7`", "7"),                           # newlines joined with nothing, backticks gone
    ("1,234,567", "1234567"), ("1,5", "15"), ("a,1", "a,1"), ("1, 5", "1, 5"),
    ("1,2,3,4,5", "12345"), ("1,2.5,3", "12.53"),               # runs of single digits too
    (", 42 ,", " 42 "), (",,7,,", ",7,"),                        # one comma at each end
    ("100.00%", "100%"), ("5.0", "5"), ("71.40%", "71.4%"), ("0.50 || 3.0x", "0.5 || 3.0x"), ("100", "100"),
    ("2.500 kg", "2.5 kg"), ("10.00.3", "10.3"),
])
def test_paper_clean_response(raw, cleaned):
    assert clean_response(raw) == cleaned


def test_paper_digit_commas_are_the_release_five_passes():
    """Five non-overlapping passes of `(\\d),(\\d)` (the release) remove what one lookaround pass removes."""
    import random
    import re

    rng = random.Random(7)
    pass_re = re.compile(r"(\d),(\d)")
    for _ in range(20000):
        raw = "".join(rng.choice("0123456789,,, a.") for _ in range(rng.randrange(1, 40)))
        five = raw.lower().strip()
        for _ in range(5):
            five = pass_re.sub(r"\1\2", five)
        assert clean_response(raw) == clean_response(five), raw
    assert clean_response("1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9,1,2,3,4,5,6") == "123456789" * 3 + "123456"


def test_paper_split_keeps_empty_values():
    assert response_values(clean_response("9 ||")) == {"9", ""}
    assert response_values(clean_response(" a ||  b || a ")) == {"a", "b"}
    assert response_values(clean_response("a | b")) == {"a | b"}  # a single bar does not split a response
    assert _paper("9 ||", "{9}") == (0.5, 1.0, pytest.approx(2 / 3), 1)


@pytest.mark.parametrize("gt,values", [
    ("{Alpha | 1,024} || {Beta | 7}", ["alpha", "1024", "beta", "7"]),
    ("Yes", ["yes"]),
    ("{0 || 5}", ["0", "5"]),
    ("{12} || 3{4}", ["12", "34"]),                              # braces deleted before splitting
    ("{30.41 | 32.22} {69.59 | 67.78}", ["30.41", "32.22 69.59", "67.78"]),
    ("{}", [""]), ("{a | }", ["a", ""]),                         # empty values kept
    ("{2.50 | 100.00%}", ["2.5", "100%"]),                       # trailing zeros per value
    ("{1,2,3,4}", ["1234"]),                                     # every digit comma, in one go
    ("{Smith, J. | 1,5}", ["smith, j.", "15"]),
])
def test_paper_gt_values(gt, values):
    assert gt_value_list(gt) == values
    assert gt_values(gt) == frozenset(values)


def test_paper_sets_and_denominators():
    assert _paper("p || q", "{p | q}") == (1.0, 1.0, 1.0, 1)
    assert _paper("p", "{p | q}") == (1.0, 0.5, pytest.approx(2 / 3), 0)
    assert _paper("p || q || r || s", "{p | q}") == (0.5, 1.0, pytest.approx(2 / 3), 1)
    assert _paper("p || p || p", "{p} || {p}") == (1.0, 1.0, 1.0, 1)  # sets: repeats count once
    assert _paper("r", "{p}") == (0.0, 0.0, 0.0, 0)
    assert _paper("", "{}") == (1.0, 1.0, 1.0, 1)                    # the empty value matches the empty value
    assert _paper("", "{p}") == (0.0, 0.0, 0.0, 0)
    assert _paper("50.555", "{50.56}") == (0.0, 0.0, 0.0, 0)          # text, not numbers
    assert _paper("1026.0", "{1026}") == (1.0, 1.0, 1.0, 1)


# ---------------------------------------------------------------- strict mode: each rule

@pytest.mark.parametrize("response", [
    None, float("nan"), "", "   ", "No answer", "error: timeout", "Answer: no answer", "I cannot tell from the table.",
    "Sorry, the table does not say.", "N/A", "Not enough information.", "```\n```", "**Answer:** I'm unable to answer.",
])
def test_strict_unanswered_scores_zero_and_is_counted(response):
    s = score_one(response, "{7}", "strict")
    assert s["unanswered"] is True and s["left_out"] is False
    assert _strict(response, "{7}") == (0.0, 0.0, 0.0, 0)


def test_is_unanswered_is_the_readings_flag(gemma):
    """The flag paper mode reads alone is the full reading's, on the sample and on random texts built from
    the characters and markers the rules act on."""
    import random

    from evaluation_py.scoring.strict_reading import is_unanswered

    for response in gemma["response"]:
        assert is_unanswered(response) == read_response(response).unanswered, response
    rng = random.Random(3)
    pieces = list("0123456789 .,|{}-\t\n:;%*_`'\"") + ["1. ", "- ", "\n\n", "no answer", "error", "n/a", "answer: ",
                                                      "note:", "```", "\\boxed{", "sorry", "\u0663", "\u00a0", "\r\n",
                                                      " and ", "||", "x"]
    for _ in range(50000):
        response = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        assert is_unanswered(response) == read_response(response).unanswered, repr(response)


def test_strict_unanswered_are_in_the_means():
    scored = score_frame(pd.DataFrame({"response": ["7", None, "I don't know", ""], "gt": ["{7}"] * 4}))
    row = summarize(scored).iloc[0]
    assert (int(row["n"]), int(row["left_out"]), int(row["unanswered"]), row["f1"]) == (4, 0, 3, 0.25)
    assert score_one("No", "No")["unanswered"] is False  # a short answer is not a refusal


@pytest.mark.parametrize("response", [
    "{Q1 | 696} || {Q2 | 329}", "Q1 | 696 || Q2 | 329", "Q1 || 696 || Q2 || 329",
    "| Quarter | Count |\n|---|---|\n| Q1 | 696 |\n| Q2 | 329 |",       # a Markdown table (headers count)
])
def test_strict_reads_the_gt_format(response):
    p, r, f, cc = _strict(response, "{Q1 | 696} || {Q2 | 329}")
    assert (r, cc) == (1.0, 1)
    assert p == (1.0 if "Count" not in response else 4 / 6)


@pytest.mark.parametrize("response", [
    "Answer: 51.52", "The answer is 51.52.", "Final answer: 51.52", "Final Answer 51.52",
    "Step 1: sum the rows.\nStep 2: divide by 3.\nAnswer: 51.52", "We get $\\boxed{51.52}$.",
    "Answer:\n51.52\n\nExplanation: averaged over the three rows.", "answer = 51.52 Note: rounded",
    "```\n51.52\n```", "**51.52**", "51.52<eos_token>", "The average is 51.52.",
])
def test_strict_finds_the_final_answer(response):
    assert _strict(response, "{51.52}") == (1.0, 1.0, 1.0, 1)
    assert _paper("The answer is 51.52", "{51.52}") == (0.0, 0.0, 0.0, 0)  # paper mode reads text as is


def test_strict_marker_priorities():
    # the last marker wins, and "final answer" over a plain "answer"
    assert answer_part("Answer: 3 (draft)\nAnswer: 4") == "4"
    assert answer_part("Final answer: 9\nThe answer is 4 in the first table.") == "9"
    assert answer_part("\\boxed{1} then \\boxed{{2}}\nAnswer: 3") == "1\n{2}"
    assert answer_part("Note: x\n\n7") == ""


@pytest.mark.parametrize("response", [
    "- Doha\n- Al Khor", "* Doha\n* Al Khor", "1. Doha\n2. Al Khor", "1) Doha\n2) Al Khor", "Doha\nAl Khor",
    "• Doha\n• Al Khor", "Answer:\n- Doha\n- Al Khor", "Doha || Al Khor ||",
])
def test_strict_reads_lists(response):
    assert _strict(response, "{Doha} || {Al Khor}") == (1.0, 1.0, 1.0, 1)


@pytest.mark.parametrize("response,expected", [
    ("40, 86 and 1,234", (1.0, 1.0, 1.0, 1)), ("40; 86; 1234", (1.0, 1.0, 1.0, 1)), ("40 and 86", (1.0, 2 / 3, 0.8, 0)),
    ("40,86", (0.0, 0.0, 0.0, 0)),                  # no space: not a list (nor a thousands separator)
    ("Female, 40 and 86", (0.0, 0.0, 0.0, 0)),      # not all numbers: one text value
])
def test_strict_reads_a_line_of_numbers(response, expected):
    assert _strict(response, "{40} || {86} || {1234}") == pytest.approx(expected)


def test_strict_list_marks_are_not_signs():
    assert _strict("-5\n-7", "{-5} || {-7}") == (1.0, 1.0, 1.0, 1)


@pytest.mark.parametrize("response,gt,hit", [
    ("50.555", "{50.56}", True), ("50.56", "{50.56}", True), ("50.560", "{50.56}", True),
    ("50.565", "{50.56}", True), ("50.5651", "{50.56}", False), ("50.5", "{50.56}", False),
    ("50.5551", "{50.56}", True), ("50.554", "{50.56}", False),
    ("1,234", "{1234}", True), ("1234", "{1,234}", True), ("1234.5", "{1234}", True), ("1234.51", "{1234}", False),
    ("1,234,567", "{1234567}", True), ("1,5", "{15}", False), ("12,34", "{1234}", False),
    ("71.4%", "{71.4}", True), ("71.4", "{71.40%}", True), ("71.45", "{71.40%}", False),  # gt zeros set precision
    ("$1,200", "{1200}", True), ("-3", "{-3.0}", True), ("\u22123", "{-3}", True), ("+3", "{3}", True),
    ("0.5", "{.5}", True), ("5", "{5.0}", True), ("5.04", "{5.0}", True), ("5.06", "{5.0}", False),
])
def test_strict_numbers_within_half_a_unit(response, gt, hit):
    assert _strict(response, gt) == ((1.0, 1.0, 1.0, 1) if hit else (0.0, 0.0, 0.0, 0))


@pytest.mark.parametrize("text,number", [
    ("1,234", Decimal("1234")), ("-0.25", Decimal("-0.25")), ("12%", Decimal("12")), ("12 %", Decimal("12")),
    ("€3.5", Decimal("3.5")), ("1,23", None), ("2000-01", None), ("q1", None), ("", None), (".", None), ("%", None),
    ("²", None), ("1²", None),
])
def test_strict_parse_number(text, number):
    assert parse_number(text) == number


def test_strict_short_sentence_with_one_value():
    assert _strict("There were 1,234 accidents.", "{1234}") == (1.0, 1.0, 1.0, 1)
    assert _strict("In 2020 there were 1,234 accidents.", "{1234}") == (0.0, 0.0, 0.0, 0)  # two numbers
    long = "The figure that the table gives for this group " * 3 + "is 7."
    assert _strict(long, "{7}") == (0.0, 0.0, 0.0, 0)  # not a short sentence
    assert _strict("Q1", "{1}") == (0.0, 0.0, 0.0, 0)  # a digit inside a word is not a number
    # a text gt is matched by its text, even when it holds a number
    assert _strict("Less than 5 units", "{Less than 5 units}") == (1.0, 1.0, 1.0, 1)


def test_strict_yes_no_in_a_sentence():
    assert _strict("Yes, it rose in 2021.", "Yes") == (1.0, 1.0, 1.0, 1)
    assert _strict("No.", "no") == (1.0, 1.0, 1.0, 1)
    assert _strict("Nowhere", "No") == (0.0, 0.0, 0.0, 0)


def test_strict_text_values():
    assert _strict('"Al Rayyan".', "{AL RAYYAN}") == (1.0, 1.0, 1.0, 1)
    assert _strict("Households,  nonprofit organizations", "{Households, nonprofit organizations}") == (1.0, 1.0, 1.0, 1)
    assert _strict("Hybrid model (ours)", "{Hybrid model (ours)}") == (1.0, 1.0, 1.0, 1)
    assert _strict("1999-00", "{1999-00}") == (1.0, 1.0, 1.0, 1)


def test_strict_sets_and_partial_answers():
    assert _strict("p || p || q", "{p | q}") == (1.0, 1.0, 1.0, 1)          # repeats count once
    assert _strict("p", "{p | q}") == (1.0, 0.5, pytest.approx(2 / 3), 0)
    assert _strict("p || q || r || s", "{p | q}") == (0.5, 1.0, pytest.approx(2 / 3), 1)
    assert _strict("5 || 5.0", "{5}") == (1.0, 1.0, 1.0, 1)                 # one number, written twice
    assert _strict("7", "{}") == (0.0, 0.0, 0.0, 0)                         # nothing expected: nothing to match


def test_strict_gt_reading():
    assert list(read_gt("{Q1 | 1,696.50} || {q1 | 3}").values) == [
        ("q1", None, None), ("1696.50", Decimal("1696.50"), Decimal("0.005")), ("3", Decimal(3), Decimal("0.5"))]
    assert read_gt("{}").values == ()
    assert read_response("9 ||").values == read_response("9").values


# ---------------------------------------------------------------- modes, summaries, ids

def test_modes_average_differently():
    df = pd.DataFrame({"response": ["a", None, "No answer", "", "x"], "gt": ["{a}", "{b}", "{c}", "{d}", "{y}"],
                       "grp": ["g1", "g1", "g2", "g2", "g2"]})
    paper, strict = score_frame(df, scoring_mode="paper"), score_frame(df, scoring_mode="strict")
    assert paper["left_out"].tolist() == [False, True, True, False, False]
    assert not strict["left_out"].any()
    assert strict["unanswered"].tolist() == paper["unanswered"].tolist() == [False, True, True, True, False]
    p, s = summarize(paper).iloc[0], summarize(strict).iloc[0]
    assert (int(p["n"]), int(p["left_out"]), int(p["unanswered"]), p["f1"]) == (5, 2, 3, pytest.approx(1 / 3))
    assert (int(s["n"]), int(s["left_out"]), int(s["unanswered"]), s["f1"]) == (5, 0, 3, pytest.approx(1 / 5))
    by = summarize(paper, ["grp"]).set_index("grp")
    assert by.loc["g1", "cc"] == 1.0 and int(by.loc["g1", "left_out"]) == 1 and int(by.loc["g2", "n"]) == 3


def test_all_left_out_group_gives_nan_in_paper_mode():
    df = pd.DataFrame({"response": [None], "gt": ["{a}"]})
    assert math.isnan(summarize(score_frame(df, scoring_mode="paper")).iloc[0]["f1"])
    assert summarize(score_frame(df, scoring_mode="strict")).iloc[0]["f1"] == 0.0


def test_score_frame_keeps_index_and_input():
    df = pd.DataFrame({"r": ["a", float("nan")], "g": ["{a}", "{a}"]}, index=[10, 20])
    scored = score_frame(df, response_col="r", gt_col="g", scoring_mode="paper")
    assert list(scored.index) == [10, 20] and scored["cc"].tolist() == [1, 0]
    assert scored["left_out"].tolist() == [False, True]
    assert "precision" not in df.columns


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="lenient"):
        score_frame(pd.DataFrame({"response": ["a"], "gt": ["a"]}), scoring_mode="lenient")


def test_dataset_of():
    assert dataset_of("psa--1--102--A0") == "psa"
    assert dataset_of("syn--accidents--casualties--v0007--r2--q03") == "accidents"
    assert dataset_of("syn--weather--t--v1--r1--q01") == "weather"
    assert dataset_of("nodashes") == "nodashes"


# ---------------------------------------------------------------- CLI input handling

def _write(tmp_path: Path, lines: list[str], prefix: str = "") -> Path:
    p = tmp_path / "responses.jsonl"
    p.write_text(prefix + "\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_cli_missing_file(tmp_path):
    missing = tmp_path / "nope.jsonl"
    proc = _run_cli(str(missing))
    assert proc.returncode == 2 and str(missing) in proc.stderr


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_cli_empty_file_is_an_error(capsys, tmp_path, content):
    p = tmp_path / "empty.jsonl"
    p.write_text(content, encoding="utf-8")
    proc = _call_cli(capsys, str(p))
    assert proc.returncode == 2 and proc.stdout == ""
    assert str(p) in proc.stderr and "no responses" in proc.stderr


def test_cli_accepts_a_byte_order_mark(capsys, tmp_path):
    p = _write(tmp_path, [json.dumps({"qap_id": "psa--1", "response": "a", "gt": "{a}"})], prefix="\ufeff")
    proc = _call_cli(capsys, str(p))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["f1"] == 1.0


def test_cli_duplicate_ids_are_an_error_naming_them(capsys, tmp_path):
    lines = [json.dumps({"id": i, "response": "a", "gt": "{a}"}) for i in ("x--1", "x--2", "x--1", "x--3", "x--2", "x--1")]
    p = _write(tmp_path, lines)
    proc = _call_cli(capsys, str(p))
    assert proc.returncode == 2 and proc.stdout == ""
    assert str(p) in proc.stderr
    assert "'x--1' on lines 1, 3, 6" in proc.stderr and "'x--2' on lines 2, 5" in proc.stderr
    assert "x--3" not in proc.stderr


@pytest.mark.parametrize("bad_line,needle", [
    ('{"id": "x--1", "response": "a", "gt": "{a}"', "malformed JSON"),
    ('["not", "an", "object"]', "JSON object"),
    ('{"response": "a", "gt": "{a}"}', "missing id"),
    ('{"id": "x--1", "gt": "{a}"}', "missing 'response' (or 'output')"),
    ('{"id": "x--1", "response": "a"}', "missing 'gt'"),
    ('{"id": "x--1", "response": "a", "gt": null}', "missing 'gt'"),
    ('{"id": "x--1", "response": [3], "gt": "{a}"}', "'response' must be"),
    ('{"id": "x--1", "response": "a", "output": "b", "gt": "{a}"}', "both 'response' and 'output'"),
])
def test_cli_bad_lines(capsys, tmp_path, bad_line, needle):
    good = json.dumps({"qap_id": "psa--1", "response": "a", "gt": "{a}"})
    p = _write(tmp_path, [good, "", bad_line])
    proc = _call_cli(capsys, str(p))
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"{p}:3" in proc.stderr and needle in proc.stderr


def test_cli_by_other_key_and_id_key(capsys, tmp_path):
    p = _write(tmp_path, [
        json.dumps({"id": "a--1", "response": "x", "gt": "{x}", "model": "m1"}),
        json.dumps({"id": "b--2", "response": "No answer", "gt": "{y}", "model": "m1"}),
        json.dumps({"id": "b--3", "response": None, "gt": "{y}", "model": "m2"}),
    ])
    out = json.loads(_call_cli(capsys, str(p), "--by", "model", "--scoring-mode", "paper").stdout)
    assert (out["n"], out["left_out"], out["unanswered"], out["f1"]) == (3, 2, 2, 1.0)
    # paper mode computes the release's four metrics unless asked for others
    assert out["groups"]["m1"] == {"n": 2, "left_out": 1, "unanswered": 1, "precision": 1.0, "recall": 1.0,
                                   "f1": 1.0, "cc": 1.0}
    assert out["groups"]["m2"]["f1"] is None
    out = json.loads(_call_cli(capsys, str(p), "--by", "dataset").stdout)
    assert out["scoring_mode"] == "strict" and set(out["groups"]) == {"a", "b"}
    # strict mode: every metric of a value match by default; the text metrics when asked
    assert out["groups"]["b"] == {"n": 2, "left_out": 0, "unanswered": 2, "precision": 0.0, "recall": 0.0,
                                  "f1": 0.0, "cc": 0.0, "exact_match": 0.0}
    out = json.loads(_call_cli(capsys, str(p), "--metrics", "bleu,f1,rouge_l").stdout)
    assert [k for k in out if k not in ("scoring_mode", "inference_mode", "n", "left_out", "unanswered")] == [
        "f1", "rouge_l", "bleu"]
    assert (out["f1"], out["rouge_l"], out["bleu"]) == (1 / 3, 1 / 3, 1 / 3) or out["f1"] == round(1 / 3, 4)


def test_cli_unknown_metric_is_named(capsys, tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x", "gt": "{x}"})])
    proc = _call_cli(capsys, str(p), "--metrics", "f1,rouge")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--metrics: unknown metric 'rouge'" in proc.stderr and "rouge_l" in proc.stderr


def test_cli_imports_no_text_metric_library_unless_asked(tmp_path):
    import subprocess
    import sys
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x || y", "gt": "{x}"})])  # not equal: scored
    probe = ("import runpy, sys; sys.argv = ['score', %r] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('evaluation_py.scoring.cli', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print('LOADED', sorted(m for m in ('nltk', 'rouge_score', 'sacrebleu') if m in sys.modules), "
             "file=sys.stderr)\n"
             "print('PANDAS', 'pandas' in sys.modules, file=sys.stderr)\n"
             "print('BACKENDS', 'evaluation_py.backends' in sys.modules, file=sys.stderr)")
    default = subprocess.run([sys.executable, "-c", probe % str(p)], capture_output=True, text=True, check=True)
    assert "LOADED []" in default.stderr
    assert "PANDAS False" in default.stderr  # a file is scored in plain Python
    assert "BACKENDS False" in default.stderr  # its mode's extraction filter is read without the backends
    rouge = subprocess.run([sys.executable, "-c", probe % str(p), "--metrics", "rouge_l"], capture_output=True,
                           text=True, check=True)
    assert "LOADED []" in rouge.stderr  # ROUGE-L is computed here
    asked = subprocess.run([sys.executable, "-c", probe % str(p), "--metrics", "bleu"], capture_output=True,
                           text=True, check=True)
    assert "LOADED ['sacrebleu']" in asked.stderr


def test_cli_by_dataset_groups_synthetic_ids_by_domain(capsys, tmp_path):
    p = _write(tmp_path, [
        json.dumps({"id": "syn--accidents--casualties--v0001--r1--q01", "response": "1", "gt": "{1}"}),
        json.dumps({"id": "syn--weather--temperature--v0002--r1--q02", "response": "2", "gt": "{3}"}),
        json.dumps({"id": "syn--accidents--casualties--v0001--r1--q02", "response": "4", "gt": "{4}"}),
        json.dumps({"id": "psa--1--102--A0", "response": "5", "gt": "{5}"}),
    ])
    out = json.loads(_call_cli(capsys, str(p), "--by", "dataset").stdout)
    assert {g: (v["n"], v["f1"]) for g, v in out["groups"].items()} == {
        "accidents": (2, 1.0), "weather": (1, 0.0), "psa": (1, 1.0)}


def test_cli_by_missing_key(capsys, tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x", "gt": "{x}"})])
    proc = _call_cli(capsys, str(p), "--by", "model")
    assert proc.returncode == 2 and f"{p}:1" in proc.stderr and "model" in proc.stderr


def test_cli_rounds_to_four_decimals(capsys, tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x || y || z", "gt": "{x}"})])
    out = json.loads(_call_cli(capsys, str(p)).stdout)
    assert (out["precision"], out["f1"]) == (0.3333, 0.5)


def test_cli_malformed_line_as_subprocess(tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x", "gt": "{x}"}), "{oops"])
    proc = _run_cli(str(p))
    assert proc.returncode == 2 and f"{p}:2" in proc.stderr and "malformed JSON" in proc.stderr


def test_cli_inference_mode_picks_the_extraction_filter(capsys, tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a", "response": "It is 40 for women.\nFinal answer: 40", "gt": "{40}"})])
    direct = json.loads(_call_cli(capsys, str(p), "--scoring-mode", "paper").stdout)
    tcot = json.loads(_call_cli(capsys, str(p), "--scoring-mode", "paper", "--inference-mode", "tcot").stdout)
    assert (direct["inference_mode"], direct["f1"]) == ("direct", 0.0)
    assert (tcot["inference_mode"], tcot["scoring_mode"], tcot["f1"], tcot["cc"]) == ("tcot", "paper", 1.0, 1.0)
    proc = _call_cli(capsys, str(p), "--inference-mode", "telepathy")
    assert proc.returncode == 2 and "inference mode 'telepathy' has no extraction filter" in proc.stderr


def test_cli_scores_a_large_file_in_two_halves_with_the_same_result(tmp_path, monkeypatch):
    import os
    import random

    from evaluation_py.scoring import line_scores

    rng = random.Random(7)
    values = ["12", "7.5", "Paris", "no answer", "error", "1,200", "x", "3 | 4"]
    lines = []
    for i in range(400):
        gt = "{" + rng.choice(values) + "}" + ("" if rng.random() < 0.7 else " || {" + rng.choice(values) + "}")
        response = rng.choice(values + [None, "The answer is " + rng.choice(values)])
        lines.append(json.dumps({"id": f"syn--d{i % 3}--t--v1--r1--q{i}", "response": response, "gt": gt}))
    p = _write(tmp_path, lines)
    children = []
    real_fork = os.fork

    def fork():
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    for mode in ("paper", "strict"):
        monkeypatch.setattr(score_cli, "SPLIT_FROM", 10**9)
        whole = score_cli.score_file(str(p), mode, by="dataset")
        monkeypatch.setattr(score_cli, "SPLIT_FROM", 100)
        monkeypatch.setattr(os, "fork", fork)
        halves = score_cli.score_file(str(p), mode, by="dataset")
        lines_read = score_cli.read_responses(str(p))
        names = line_scores.default_metrics(mode)
        by_line = score_cli._scored(lines_read.responses, lines_read.gts, mode, names)
        monkeypatch.setattr(os, "fork", real_fork)
        assert halves == whole
        # line by line, in the lines' order
        assert by_line == line_scores.score_lists(lines_read.responses, lines_read.gts, scoring_mode=mode, metric_names=names)
    if (os.cpu_count() or 1) >= 2:
        assert len(children) == 8  # two children per split scoring: the halves were scored apart
