"""TReB's metrics done right: numeric-aware exact match, ROUGE-L and BLEU on text answers, in both scoring modes."""
from __future__ import annotations

import pandas as pd
import pytest

from evaluation_py.scoring import metrics, text_metrics
from evaluation_py.scoring.metrics import Match
from evaluation_py.scoring.scores import score_one


def em(response, gt, mode="strict"):
    return score_one(response, gt, mode)["exact_match"]


@pytest.mark.parametrize("response,gt,expected", [
    ("42", "{42}", 1.0),
    ("43", "{42}", 0.0),  # TReB's letter counts call these equal
    ("42.0", "{42}", 1.0),
    ("1,234", "{1234}", 1.0),
    ("1234", "{1,234}", 1.0),
    ("50.56", "{50.56}", 1.0),
    ("50.555", "{50.56}", 1.0),  # within half a unit of the gt's last decimal
    ("50.5", "{50.56}", 0.0),
    ("42.4", "{42}", 1.0),  # the gt states whole numbers
    ("42.6", "{42}", 0.0),
    ("The answer is 42.", "{42}", 1.0),  # strict mode's reading takes the marked answer
    ("Final answer: Women || Men", "{men} || {women}", 1.0),  # a set: any order, case normalised
    ("women", "{men} || {women}", 0.0),  # a value missing (cc is 0 too)
    ("42 || 43", "{42}", 0.0),  # a value extra (cc is 1 here, exact match is not)
    ("  ROAD   Accidents ", "{Road accidents}", 1.0),  # white space and case
    (None, "{42}", 0.0),
    ("I cannot tell", "{42}", 0.0),
])
def test_exact_match_strict(response, gt, expected):
    assert em(response, gt) == expected


def test_exact_match_and_cc_differ_on_an_extra_value():
    got = score_one("42 || 43", "{42}")
    assert (got["cc"], got["exact_match"]) == (1.0, 0.0)


@pytest.mark.parametrize("response,gt,expected", [
    ("42", "{42}", 1.0), ("43", "{42}", 0.0), ("42.0", "{42}", 1.0), ("1,234", "{1234}", 1.0),
    ("b || a", "{a} || {b}", 1.0), ("a", "{a} || {b}", 0.0),
])
def test_exact_match_paper(response, gt, expected):
    assert em(response, gt, "paper") == expected


def test_exact_match_of_a_match():
    f = metrics.get("exact_match").score
    assert f(Match(1, 1, 1, 1)) == 1.0
    assert f(Match(3, 3, 2, 2)) == 1.0  # two values read as the same gt number: nothing extra
    assert f(Match(2, 1, 1, 1)) == 0.0 and f(Match(1, 1, 2, 1)) == 0.0 and f(Match(0, 0, 0, 0)) == 0.0
    assert metrics.is_binary("exact_match")


def test_rouge_l_is_rouge_scores_f_measure_with_the_word_tokenizer():
    """The same floats as the rouge-score package's ROUGE-L (no stemming, the metric's word tokenizer), on
    random texts over a small vocabulary, so common subsequences of every length occur."""
    import random

    from rouge_score import rouge_scorer

    class Words:
        def tokenize(self, text):
            return text_metrics._words(text)

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False, tokenizer=Words())
    rng = random.Random(7)
    vocab = ["road", "accidents", "by", "Region", "2020", "Zürich", "42.5", "-", "north", "total", "a"]
    for _ in range(5000):
        answer = " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 9)))
        gt = " ".join(rng.choice(vocab) for _ in range(rng.randint(1, 9)))
        if answer.strip() and answer.strip() != gt.strip():
            assert text_metrics.rouge_l(answer, gt) == scorer.score(gt, answer)["rougeL"].fmeasure, (answer, gt)


def test_rouge_l_and_bleu_values():
    assert text_metrics.rouge_l("road accidents by region", "road accidents by region") == 1.0
    # LCS of 3 words: precision 3/4, recall 3/5
    assert text_metrics.rouge_l("road accidents per region", "road accidents by region 2020") == pytest.approx(
        2 * 0.75 * 0.6 / 1.35)
    assert text_metrics.rouge_l("zürich", "Zürich") == 1.0 and text_metrics.rouge_l("zürich", "zurich") == 0.0
    assert text_metrics.rouge_l("", "x") == 0.0 and text_metrics.rouge_l("x", " ") == 0.0
    assert text_metrics.bleu("paris", "paris") == 1.0  # effective order: a one-word answer can be exact
    partial = text_metrics.bleu("road accidents by region", "road accidents by region in 2020")
    assert 0.5 < partial < 0.7  # all 4-grams right, brevity penalty exp(1 - 6/4)
    assert partial == pytest.approx(0.6065306597, abs=1e-6)
    assert text_metrics.bleu("cats", "road accidents") == 0.0


def test_text_metrics_through_the_scoring_modes():
    gt = "{Road accidents by region}"
    strict = score_one("Final answer: Road accidents by region.", gt)
    assert strict["rouge_l"] == 1.0 and strict["bleu"] == 1.0  # marker, case and final full stop read away
    partial = score_one("Road accidents per region", gt)
    assert 0 < partial["rouge_l"] < 1 and 0 < partial["bleu"] < 1 and partial["exact_match"] == 0.0
    assert score_one(None, gt)["rouge_l"] == 0.0 and score_one("I don't know", gt)["bleu"] == 0.0
    # multi-value answers: each side's values joined by a space, in their order
    two = "{North} || {South}"
    assert score_one("North || South", two)["rouge_l"] == 1.0
    assert score_one("South || North", two)["rouge_l"] == 0.5  # the LCS is one of the two words
    # paper mode reads the release's cleaning of the response
    paper = score_one("answer: road accidents by region", gt, "paper")
    assert paper["rouge_l"] == 1.0 and paper["bleu"] == 1.0
    assert score_one("no answer", gt, "paper")["left_out"]


def test_registry_knows_what_a_metric_reads():
    assert metrics.names()[:11] == ("precision", "recall", "f1", "cc", "exact_match", "rouge_l", "bleu", "judge",
                                    "refusal_correct", "false_refusal", "instruction_followed")
    assert "judge" not in metrics.scored_names() and metrics.verdict_names() == ("judge",)
    assert metrics.get("rouge_l").reads == "text" and metrics.get("f1").reads == "match"
    with pytest.raises(ValueError, match="reads 'vibes' must be one of match, text, refusal, instruction, verdict"):
        metrics.register("toy", lambda m: 0.0, "x", reads="vibes")
    with pytest.raises(TypeError, match="a verdict metric has no score function"):
        metrics.register("toy", lambda m: 0.0, "x", reads="verdict")
    with pytest.raises(TypeError, match="an answer text and a ground-truth text"):
        metrics.register("toy", 3, "x", reads="text")
    assert "toy" not in metrics.names()


def _or_none(x):
    return None if x != x else x  # NaN: the metric does not apply to the question


# None: the metric does not apply (refusal_correct reads the unanswerable questions, false_refusal the others)
@pytest.mark.parametrize("response, gt, refusal_correct, false_refusal, exact", [
    ("no answer", "no answer", 1.0, None, 1.0),  # the documented refusal, where the table cannot answer
    ("no answer", "{no answer}", 1.0, None, 1.0),  # the gt as benchmark_questions writes it
    ("Final answer: I cannot tell from the table.", "no answer", 1.0, None, 1.0),
    ("12", "no answer", 0.0, None, 0.0),  # a made-up value
    (None, "no answer", 0.0, None, 0.0),  # a failed request is no refusal
    ("Error: timeout", "no answer", 0.0, None, 0.0),
    ("no answer", "12", None, 1.0, 0.0),  # a refusal where the table answers
    ("12", "12", None, 0.0, 1.0),
])
def test_refusals_are_scored_against_unanswerable_questions(response, gt, refusal_correct, false_refusal, exact):
    s = score_one(response, gt, "strict")
    assert (_or_none(s["refusal_correct"]), _or_none(s["false_refusal"]), s["exact_match"], s["f1"]) == (
        refusal_correct, false_refusal, exact, exact)
    paper = score_one(response, gt, "paper")  # the release's reading leaves `no answer` out; refusals read alike
    assert (_or_none(paper["refusal_correct"]), _or_none(paper["false_refusal"])) == (refusal_correct, false_refusal)


def test_a_partial_metric_has_rows_only_where_it_applies():
    from evaluation_py.scoring.scores import score_frame, summarize, to_long

    frame = pd.DataFrame({"id": ["a", "b", "c"], "response": ["no answer", "12", "no answer"],
                          "gt": ["no answer", "12", "7"]})
    scored = score_frame(frame, metric_names=["f1", "refusal_correct", "false_refusal"])
    long = to_long(scored[["id", "f1", "refusal_correct", "false_refusal", "left_out", "unanswered"]],
                   ["f1", "refusal_correct", "false_refusal"])
    rows = {m: sorted(g["id"]) for m, g in long.groupby("metric")}
    assert rows == {"f1": ["a", "b", "c"], "refusal_correct": ["a"], "false_refusal": ["b", "c"]}
    summary = summarize(scored).iloc[0]
    assert summary["n"] == 3 and summary["refusal_correct"] == 1.0 and summary["false_refusal"] == 0.5


@pytest.mark.parametrize("answer, instruction, expected", [
    ("158 || 148 || 49", {"kind": "descending"}, 1.0),
    ("49, 148 and 158", {"kind": "descending"}, 0.0),
    ("158", {"kind": "descending"}, 0.0),  # one number is no order
    ("12.0 || 3.5", '{"kind": "one_decimal"}', 1.0),  # as benchmark_questions.output_instruction holds it
    ("12 || 3.5", {"kind": "one_decimal"}, 0.0),
    ("1,234.5 and -0.3", {"kind": "one_decimal"}, 1.0),
    ("12 || 3", {"kind": "max_words", "words": 2}, 1.0),
    ("The values are 12 and 3.", {"kind": "max_words", "words": 2}, 0.0),
    (None, {"kind": "max_words", "words": 2}, 0.0),
    ("[158, 148]", {"kind": "json_array"}, 1.0),
    ('```json\n["158", "148"]\n```', {"kind": "json_array"}, 1.0),  # a fenced array is still only the array
    ("The values: [158, 148]", {"kind": "json_array"}, 0.0),
    ("[]", {"kind": "json_array"}, 0.0),
    ("[[158], 148]", {"kind": "json_array"}, 0.0),
    ("158 casualties || 148 Casualties", {"kind": "with_unit", "unit": "casualties"}, 1.0),
    ("158 casualties || 148", {"kind": "with_unit", "unit": "casualties"}, 0.0),
    ("12.5 degrees Celsius", {"kind": "with_unit", "unit": "degrees Celsius"}, 1.0),
    ("  Result: 158 || 148", {"kind": "prefix", "prefix": "Result:"}, 1.0),
    ("result: 158 || 148", {"kind": "prefix", "prefix": "Result:"}, 0.0),
    ("158 || 148. Result:", {"kind": "prefix", "prefix": "Result:"}, 0.0),
    ("SEVILLE", {"kind": "upper_case"}, 1.0),
    ("Seville", {"kind": "upper_case"}, 0.0),
    ("2021", {"kind": "upper_case"}, 0.0),  # no letters to write in upper case
    ("anything", None, None),  # no instruction: the metric does not apply
])
def test_output_instructions_are_checked_by_rule_apart_from_correctness(answer, instruction, expected):
    from evaluation_py.scoring.instructions import followed
    from evaluation_py.scoring.scores import score_lists

    assert _or_none(followed(answer, instruction)) == expected
    s = score_lists([answer], ["{158} || {148}"], "strict", instructions=[instruction])
    assert [_or_none(v) for v in s["instruction_followed"]] == [expected]


def test_an_unknown_instruction_is_an_error_naming_it():
    from evaluation_py.scoring.instructions import followed

    with pytest.raises(ValueError, match="kind must be one of descending, one_decimal, max_words, json_array, "
                                         "with_unit, prefix, upper_case"):
        followed("1", {"kind": "json"})


@pytest.mark.parametrize("instruction", [
    {"kind": "descending"}, {"kind": "one_decimal"}, {"kind": "max_words", "words": 2}, {"kind": "json_array"},
    {"kind": "with_unit", "unit": "tonnes"}, {"kind": "prefix", "prefix": "Result:"}, {"kind": "upper_case"}])
def test_an_answer_written_as_instructed_follows_the_instruction_and_keeps_its_values(instruction):
    from evaluation_py.scoring.instructions import followed, write
    from evaluation_py.scoring.scores import score_lists

    values = ["Oslo"] if instruction["kind"] == "upper_case" else (
        ["158.0", "14.5"] if instruction["kind"] == "one_decimal" else ["158", "14.5"])
    gt = " || ".join("{%s}" % v for v in values)
    answer = write(values, instruction)
    assert followed(answer, instruction) == 1.0
    s = score_lists([answer], [gt], "strict", instructions=[instruction])
    assert s["exact_match"] == [1.0] and s["instruction_followed"] == [1.0], answer
    # the plain values follow the form-free instructions only
    plain = " || ".join(values)
    assert followed(plain, instruction) == (0.0 if instruction["kind"] in ("json_array", "with_unit", "prefix",
                                                                           "upper_case") else 1.0)


def test_strict_reading_takes_a_json_array_as_its_items():
    from evaluation_py.scoring.strict_reading import read_gt, read_response, split_values, match
    assert split_values('[12.5, 7, "Oslo"]') == ["12.5", "7", "Oslo"]
    assert split_values("[12.5, 7") == ["[12.5, 7"] and split_values("[1, [2]]") == ["[1, [2]]"]
    assert match(read_response("[12.50, 7]"), read_gt("{12.5} || {7}")) == (2, 2, 2, 2)
