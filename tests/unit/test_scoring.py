"""HCT-QA scoring: the release's published numbers, the paper's example, cleaning, the CLI."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from evaluation_py.normalize import clean_response, gt_values, normalize_value, response_values
from evaluation_py import score as score_cli
from evaluation_py.scoring import dataset_of, score_frame, score_one, summarize

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def reference(real_sample_dir) -> Path:
    """The release's published gemma-2-9b-it responses to the 194 questions of the real sample."""
    return real_sample_dir / "responses--gemma-2-9b-it--realHCTs.sample.jsonl"


# The scores the release's own scoring gives that file: (n, left_out, precision, recall, f1, cc).
EXPECTED_ALL = {
    "paper": (194, 9, 0.3969, 0.3924, 0.3706, 0.2757),
    "strict": (194, 0, 0.3785, 0.3742, 0.3534, 0.2629),
}
EXPECTED_PAPER_BY_DATASET = {
    "psa": (93, 0.4182, 0.4138, 0.3870, 0.2907),
    "arxiv": (27, 0.1605, 0.1442, 0.1327, 0.1111),
    "census": (16, 0.1429, 0.1905, 0.1599, 0.1429),
    "pak": (58, 0.5367, 0.5250, 0.5080, 0.3621),
}
# Left out per dataset in paper mode: the 9 "No Answer" responses (empty responses are not left out).
EXPECTED_LEFT_OUT_BY_DATASET = {"psa": 7, "arxiv": 0, "census": 2, "pak": 0}
METRICS = ("precision", "recall", "f1", "cc")


def _reference_frame(path: Path) -> pd.DataFrame:
    df = pd.read_json(path, lines=True, dtype=False)
    df["dataset"] = df["qap_id"].map(dataset_of)
    return df


def _run_cli(*args: str) -> subprocess.CompletedProcess:
    """The CLI as a separate process, exactly as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "evaluation_py.score", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )


def _call_cli(capsys, *args: str) -> subprocess.CompletedProcess:
    """The CLI's main() in this process (fast); same shape of result as _run_cli."""
    rc = score_cli.main(list(args))
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), rc, captured.out, captured.err)


# ---------------------------------------------------------------- reference numbers

@pytest.mark.parametrize("mode", ["paper", "strict"])
def test_reference_all_questions_api(reference, mode):
    row = summarize(score_frame(_reference_frame(reference)), mode, []).iloc[0]
    n, left_out, *means = EXPECTED_ALL[mode]
    assert int(row["n"]) == n
    assert int(row["left_out"]) == left_out
    assert [round(float(row[m]), 4) for m in METRICS] == means


def test_reference_per_dataset_paper_api(reference):
    res = summarize(score_frame(_reference_frame(reference)), "paper", ["dataset"]).set_index("dataset")
    assert set(res.index) == set(EXPECTED_PAPER_BY_DATASET)
    for ds, (n, *means) in EXPECTED_PAPER_BY_DATASET.items():
        assert int(res.loc[ds, "n"]) == n, ds
        assert int(res.loc[ds, "left_out"]) == EXPECTED_LEFT_OUT_BY_DATASET[ds], ds
        assert [round(float(res.loc[ds, m]), 4) for m in METRICS] == means, ds


def test_reference_score_one_agrees_with_score_frame(reference):
    df = _reference_frame(reference)
    scored = score_frame(df)
    for (_, row), resp, gt in zip(scored.iterrows(), df["response"], df["gt"]):
        one = score_one(resp, gt)
        assert one["left_out"] == bool(row["left_out"])
        for m in METRICS:
            assert one[m] == pytest.approx(row[m], abs=1e-12)


@pytest.mark.parametrize("mode", ["paper", "strict"])
def test_reference_cli(reference, mode):
    proc = _run_cli(str(reference), "--mode", mode, "--by", "dataset")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    n, left_out, *means = EXPECTED_ALL[mode]
    assert out["mode"] == mode
    assert (out["n"], out["left_out"]) == (n, left_out)
    assert [out[m] for m in METRICS] == means
    assert set(out["groups"]) == set(EXPECTED_PAPER_BY_DATASET)
    if mode == "paper":
        for ds, (gn, *gmeans) in EXPECTED_PAPER_BY_DATASET.items():
            g = out["groups"][ds]
            assert g["n"] == gn
            assert g["left_out"] == EXPECTED_LEFT_OUT_BY_DATASET[ds]
            assert [g[m] for m in METRICS] == gmeans, ds
    else:
        assert all(g["left_out"] == 0 for g in out["groups"].values())


def test_reference_cli_without_by_has_no_groups(reference):
    proc = _run_cli(str(reference))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "groups" not in out
    assert out["mode"] == "paper"
    assert out["f1"] == 0.3706


def test_reference_details_that_fix_the_rules():
    # A trailing "||" adds an empty predicted value: "950  ||" predicts {"950", ""}.
    assert response_values("77  || 87 || 102") == {"77", "87", "102"}
    assert score_one("9.9  ||", "{9.9}")["precision"] == 0.5
    # Spaces are not thousands separators.
    assert score_one("9 450 || 9 453", "{9450 | 9453}")["recall"] == 0.0
    # Empty responses score 0 but are not left out.
    assert score_one("", "{4488}") == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "cc": 0, "left_out": False}


# ---------------------------------------------------------------- paper example (section V-A)

@pytest.mark.parametrize(
    "response,f1,cc",
    [
        ("Apple || 300", 1.0, 1),
        ("Apple", 2 / 3, 0),
        ("Apple || 300 || Orange || 10", 2 / 3, 1),
    ],
)
def test_paper_example(response, f1, cc):
    s = score_one(response, "{Apple | 300}")
    assert s["f1"] == pytest.approx(f1)
    assert s["cc"] == cc
    assert s["left_out"] is False
    assert s["cc"] == (1 if s["recall"] == 1 else 0)


def test_paper_example_precision_recall():
    assert score_one("Apple", "{Apple} || {300}")["precision"] == 1.0
    assert score_one("Apple", "{Apple} || {300}")["recall"] == 0.5
    m3 = score_one("Apple || 300 || Orange || 10", "{Apple} || {300}")
    assert (m3["precision"], m3["recall"]) == (0.5, 1.0)


# ---------------------------------------------------------------- cleaning and normalisation

@pytest.mark.parametrize(
    "raw,cleaned",
    [
        ("42", "42"),
        ("  Doha || 12  ", "Doha || 12"),
        ("42<eos_token>junk", "42"),
        ("42 #input: table", "42"),
        ("42 # input more", "42"),
        ("42\n# Solution: because", "42"),
        ("42 #solution", "42"),
        ("42\n# Explanation: it is", "42"),
        ("42 #explanation", "42"),
        ("42 Note: rounded", "42"),
        ("42 NOTE: rounded", "42"),
        ("42\nTable: x", "42"),
        ("Answer: 42", "42"),
        ("answer=42", "42"),
        ("ANSWER : 42", "42"),
        ("42\n\nThe answer is found in row 3.", "42"),
        ("42\n   \nmore", "42"),
        ("```42 || 7```", "42 || 7"),
        ("Doha ||\nAl Rayyan", "Doha ||Al Rayyan"),
        (", 42", "42"),
        ("42,", "42"),
        ("42 || 7 ,", "42 || 7"),
        ("Answer: ```\n5\n```", "5"),
        ("", ""),
        ("Note: nothing", ""),
    ],
)
def test_clean_response(raw, cleaned):
    assert clean_response(raw) == cleaned


@pytest.mark.parametrize(
    "raw,norm",
    [
        (" Doha ", "doha"),
        ("1,652,818", "1652818"),
        ("18,512.37", "18512.37"),
        ("1026.0", "1026"),
        ("0.5760", "0.576"),
        ("100.00", "100"),
        ("-28,316", "-28316"),
        ("100", "100"),
        ("2000-01", "2000-01"),
        ("Households, nonprofit organizations", "households, nonprofit organizations"),
        ("9,6,0", "9,6,0"),
        ("9 450", "9 450"),
        ("0.0", "0"),
    ],
)
def test_normalize_value(raw, norm):
    assert normalize_value(raw) == norm


def test_gt_values_split_and_empty_values():
    assert gt_values("{Female | 40 | 40} || {Male | 86 | 86}") == {"female", "40", "male", "86"}
    assert gt_values("Yes") == {"yes"}
    assert gt_values("{0 || 5}") == {"0", "5"}
    assert gt_values("{ 9170 | 9013 }") == {"9170", "9013"}
    assert gt_values("{}") == frozenset()


def test_scores_use_sets_and_normalised_values():
    assert score_one("118,136", "{118136}")["cc"] == 1
    assert score_one("Yes || Yes || Yes", "Yes") == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "cc": 1,
                                                      "left_out": False}
    assert score_one("1026.0 || 5.90", "{1026.0 | 5.9}")["f1"] == 1.0
    assert score_one("Answer: 42\n\nBecause row 3 says so.", "{42}")["f1"] == 1.0
    assert score_one("a | b", "{a | b}")["recall"] == 0.0  # the response splits on "||" only


def test_empty_gt_scores_zero():
    assert score_one("42", "{}") == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "cc": 0, "left_out": False}


@pytest.mark.parametrize("response", [None, "No Answer", "  no answer.", "ERROR: timeout", "Answer: no answer",
                                      "```no answer```"])
def test_left_out_responses(response):
    s = score_one(response, "No")
    assert s["left_out"] is True
    assert (s["precision"], s["recall"], s["f1"], s["cc"]) == (0.0, 0.0, 0.0, 0)


def test_modes_average_left_out_differently():
    df = pd.DataFrame({
        "response": ["a", None, "No answer", "", "x"],
        "gt": ["{a}", "{b}", "{c}", "{d}", "{y}"],
        "grp": ["g1", "g1", "g2", "g2", "g2"],
    })
    scored = score_frame(df)
    assert scored["left_out"].tolist() == [False, True, True, False, False]
    paper = summarize(scored, "paper", []).iloc[0]
    strict = summarize(scored, "strict", []).iloc[0]
    assert (int(paper["n"]), int(paper["left_out"])) == (5, 2)
    assert paper["f1"] == pytest.approx(1 / 3)
    assert (int(strict["n"]), int(strict["left_out"])) == (5, 0)
    assert strict["f1"] == pytest.approx(1 / 5)
    by = summarize(scored, "paper", ["grp"]).set_index("grp")
    assert by.loc["g1", "cc"] == 1.0 and int(by.loc["g1", "left_out"]) == 1
    assert by.loc["g2", "cc"] == 0.0 and int(by.loc["g2", "n"]) == 3


def test_all_left_out_group_gives_nan_in_paper_mode():
    scored = score_frame(pd.DataFrame({"response": [None], "gt": ["{a}"]}))
    row = summarize(scored, "paper", []).iloc[0]
    assert int(row["left_out"]) == 1 and math.isnan(row["f1"])
    assert summarize(scored, "strict", []).iloc[0]["f1"] == 0.0


def test_score_frame_keeps_index_and_nan_response():
    df = pd.DataFrame({"r": ["a", float("nan")], "g": ["{a}", "{a}"]}, index=[10, 20])
    scored = score_frame(df, response_col="r", gt_col="g")
    assert list(scored.index) == [10, 20]
    assert scored["cc"].tolist() == [1, 0]
    assert scored["left_out"].tolist() == [False, True]
    assert "precision" not in df.columns


def test_summarize_rejects_unknown_mode():
    with pytest.raises(ValueError, match="lenient"):
        summarize(score_frame(pd.DataFrame({"response": ["a"], "gt": ["a"]})), "lenient", [])


def test_dataset_of():
    assert dataset_of("psa--1--102--A0") == "psa"
    assert dataset_of("nodashes") == "nodashes"


# ---------------------------------------------------------------- CLI input handling

def _write(tmp_path: Path, lines: list[str]) -> Path:
    p = tmp_path / "responses.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def test_cli_missing_file(tmp_path):
    missing = tmp_path / "nope.jsonl"
    proc = _run_cli(str(missing))
    assert proc.returncode == 2
    assert str(missing) in proc.stderr


@pytest.mark.parametrize(
    "bad_line,needle",
    [
        ('{"id": "x--1", "response": "a", "gt": "{a}"', "malformed JSON"),
        ('["not", "an", "object"]', "JSON object"),
        ('{"response": "a", "gt": "{a}"}', "missing id"),
        ('{"id": "x--1", "gt": "{a}"}', "missing 'response'"),
        ('{"id": "x--1", "response": "a"}', "missing 'gt'"),
        ('{"id": "x--1", "response": "a", "gt": null}', "missing 'gt'"),
        ('{"id": "x--1", "response": 3, "gt": "{a}"}', "'response' must be"),
    ],
)
def test_cli_bad_lines(capsys, tmp_path, bad_line, needle):
    good = json.dumps({"qap_id": "psa--1", "response": "a", "gt": "{a}"})
    p = _write(tmp_path, [good, "", bad_line])
    proc = _call_cli(capsys, str(p))
    assert proc.returncode == 2
    assert f"{p}:3" in proc.stderr
    assert needle in proc.stderr
    assert proc.stdout == ""


def test_cli_by_other_key_and_id_key(capsys, tmp_path):
    p = _write(tmp_path, [
        json.dumps({"id": "a--1", "response": "x", "gt": "{x}", "model": "m1"}),
        json.dumps({"id": "b--2", "response": "No answer", "gt": "{y}", "model": "m1"}),
        json.dumps({"id": "b--3", "response": None, "gt": "{y}", "model": "m2"}),
    ])
    proc = _call_cli(capsys, str(p), "--by", "model")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["n"], out["left_out"], out["f1"]) == (3, 2, 1.0)
    assert out["groups"]["m1"] == {"n": 2, "left_out": 1, "precision": 1.0, "recall": 1.0, "f1": 1.0, "cc": 1.0}
    assert out["groups"]["m2"]["f1"] is None
    proc = _call_cli(capsys, str(p), "--by", "dataset", "--mode", "strict")
    out = json.loads(proc.stdout)
    assert set(out["groups"]) == {"a", "b"}
    assert out["groups"]["b"] == {"n": 2, "left_out": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0, "cc": 0.0}


def test_cli_by_missing_key(capsys, tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x", "gt": "{x}"})])
    proc = _call_cli(capsys, str(p), "--by", "model")
    assert proc.returncode == 2
    assert f"{p}:1" in proc.stderr and "model" in proc.stderr


def test_cli_rounds_to_four_decimals(capsys, tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x || y || z", "gt": "{x}"})])
    out = json.loads(_call_cli(capsys, str(p)).stdout)
    assert out["precision"] == 0.3333
    assert out["f1"] == 0.5


def test_cli_malformed_line_as_subprocess(tmp_path):
    p = _write(tmp_path, [json.dumps({"id": "a--1", "response": "x", "gt": "{x}"}), "{oops"])
    proc = _run_cli(str(p))
    assert proc.returncode == 2
    assert f"{p}:2" in proc.stderr and "malformed JSON" in proc.stderr
