"""The LLM judge: its var, prompt and verdict reading, run through the loopback OpenAI server (scripted
verdicts, an unparsable one and a failed request), cached in the predictions store (a rerun sends nothing),
its verdicts as the `judge` metric of eval_scores, and its agreement with cc (Cohen's kappa)."""
from __future__ import annotations

import math

import pandas as pd
import pytest

from evaluation_py.scoring import judge as judge_mod
from evaluation_py.analysis.judge_agreement import AGREEMENT_COLUMNS, cohen_kappa, judge_agreement
from evaluation_py.scoring.judge import JUDGEMENT_COLUMNS, judgements_table, parse_judge_model, verdicts
from evaluation_py.prompting.judge_prompt import (JUDGE_PROMPT_VERSION, VerdictError, build_messages, parse_verdict,
                                        user_message)
from evaluation_py.scoring.scores import scores_table
from evaluation_py.running.store import PredictionStore
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer


# ---------------------------------------------------------------- verdicts

@pytest.mark.parametrize("reply,score,correct", [
    ("Verdict: correct", 1.0, True),
    ("Verdict: incorrect", 0.0, False),
    ("The values match.\n**Verdict:** Correct", 1.0, True),
    ("verdict = not correct", 0.0, False),
    ("First I thought correct, but no.\nVerdict: incorrect", 0.0, False),  # the last marker decides
    ("Score: 7", 0.7, True),
    ("score of 4.5", 0.45, False),
    ("I'd give it 8/10.", 0.8, True),
    ("3 out of 10", 0.3, False),
    ("10", 1.0, True),
    ("Correct.", 1.0, True),
    ("Incorrect: the total is 12, not 21.", 0.0, False),
    ("yes, it states both values", 1.0, True),
])
def test_verdicts_are_read_robustly(reply, score, correct):
    assert parse_verdict(reply) == (pytest.approx(score), correct)


@pytest.mark.parametrize("reply,message", [
    (None, "empty judge reply"),
    ("   ", "empty judge reply"),
    ("Score: 12", "score 12 is outside 0-10"),
    ("Verdict: maybe", "verdict 'maybe' is neither correct nor incorrect"),
    ("The answer looks correct to me", "no verdict"),  # verdict words not leading the reply are not read
    ("ECHO: Question: How many?\nIs the candidate answer correct?", "no verdict"),
])
def test_an_unreadable_verdict_is_an_error_not_a_zero(reply, message):
    with pytest.raises(VerdictError, match=message):
        parse_verdict(reply)


def test_the_prompt_carries_question_ground_truth_and_answer_and_no_marker_to_echo():
    (system, user) = build_messages("How many?", "{42 | 7} || {3}", "42, 7 and 3")
    assert system["role"] == "system" and user["content"] == user_message("How many?", "{42 | 7} || {3}", "42, 7 and 3")
    assert "Question: How many?\nGround truth: 42, 7; 3\nCandidate answer: 42, 7 and 3" in user["content"]
    (only,) = build_messages("How many?", "{42}", "42", system_role=False)
    assert only["role"] == "user" and only["content"].startswith(system["content"])
    with pytest.raises(VerdictError):  # a judge that echoes its prompt gives no verdict
        parse_verdict(only["content"])
    assert "x" * 2000 + " [... cut]\nIs the" in user_message("q", "{1}", "x" * 5000)


# ---------------------------------------------------------------- the var

def test_no_judge_by_default_and_an_empty_table():
    assert parse_judge_model(None) is None
    out = judgements_table(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), None, "/nonexistent/p.sqlite")
    assert list(out.columns) == JUDGEMENT_COLUMNS and len(out) == 0


@pytest.mark.parametrize("raw,message", [
    ("gpt", "var judge_model must be one model entry"),
    ({"backend": "openai", "base_url": "http://x/v1", "model": "m", "sample": 10}, "key `sample` has no meaning"),
    ({"backend": "openai", "base_url": "http://x/v1", "model": "m", "modes": ["tcot"]}, "key `modes` has no meaning"),
    ({"backend": "nope"}, "var judge_model: unknown backend 'nope'"),
    ({"backend": "openai", "base_url": "http://x/v1", "model": "m", "temprature": 0}, "var judge_model: unknown key 'temprature'"),
    ({"backend": "openai", "model": "m"}, "var judge_model: openai backend: 'base_url' is required"),
    ({"backend": "oracle"}, "backend 'oracle' answers from the benchmark"),
])
def test_a_bad_judge_entry_is_an_error_naming_the_var_and_key(raw, message):
    with pytest.raises(ValueError, match=message):
        parse_judge_model(raw)


def test_the_judge_is_named_judge_unless_named():
    spec = parse_judge_model({"backend": "openai", "base_url": "http://x/v1", "model": "m"})
    assert (spec.name, spec.backend, spec.model) == ("judge", "openai", "m")
    assert parse_judge_model({"name": "qwen", "backend": "openai", "base_url": "http://x/v1", "model": "m"}).name == "qwen"


# ---------------------------------------------------------------- through the loopback server

QUESTIONS = pd.DataFrame({
    "question_id": ["q1", "q2", "q3", "q4", "q5"],
    "table_id": ["t1", "t1", "t2", "t2", "t3"],
    "question": ["How many in 2020?", "How many in 2021?", "Which region?", "Total?", "Which year?"],
    "answer_gt": ["{42}", "{7}", "{North}", "{10}", "{2020}"],
    "source": "synthetic", "dataset": "accidents", "template_id": 1,
})
# (key, model, question, inference mode, response); the answer the judge sees is the extracted one
PREDICTIONS = [
    ("a1", "m_a", "q1", "direct", "42"),
    ("a2", "m_a", "q2", "direct", "8"),
    ("a3", "m_a", "q3", "direct", "North"),
    ("b1", "m_b", "q1", "direct", "42"),  # the same question and answer as a1: one judge request for both
    ("b4", "m_b", "q4", "tcot", "Adding up: 4 + 5 = 9.\nFinal answer: 9"),
    ("b5", "m_b", "q5", "direct", "2020"),
    ("b3", "m_b", "q3", "direct", None),  # no answer: not judged
]
REPLIES = {
    ("q1", "42"): "Verdict: correct",
    ("q2", "8"): "Verdict: incorrect",
    ("q3", "North"): "Hmm, hard to say.",  # unparsable
    ("q4", "9"): "Score: 8",  # a lenient judge: cc says 0
}


def _frames():
    q = QUESTIONS.set_index("question_id")
    requests = pd.DataFrame([{"cache_key": k, "question_id": qid, "table_id": q.loc[qid, "table_id"], "model_name": m,
                              "backend": "fake", "model": m, "table_format": "html", "inference_mode": mode}
                             for k, m, qid, mode, _ in PREDICTIONS])
    predictions = pd.DataFrame([{"cache_key": k, "response": r} for k, _, _, _, r in PREDICTIONS if r is not None])
    return requests, predictions


def _server(extra=None, script=None):
    q = QUESTIONS.set_index("question_id")
    replies = {**REPLIES, **(extra or {})}
    responses = {user_message(q.loc[qid, "question"], q.loc[qid, "answer_gt"], ans): reply
                 for (qid, ans), reply in replies.items()}
    plan = {user_message(q.loc[qid, "question"], q.loc[qid, "answer_gt"], ans): faults
            for (qid, ans), faults in (script or {}).items()}
    return FakeOpenAIServer(responses=responses, script=plan)


def _entry(srv, **extra):
    return {"name": "loopback_judge", "backend": "openai", "model": "fake-judge", "base_url": srv.base_url,
            "max_retries": 0, **extra}


def test_judge_through_the_loopback_server_cached_and_scored(tmp_path):
    store = tmp_path / "predictions.sqlite"
    requests, predictions = _frames()
    # b5's judge request fails (a 400 is not retried): an error, sent again next build
    with _server(script={("q5", "2020"): ["400"]}) as srv:
        out = judgements_table(requests, predictions, QUESTIONS, _entry(srv), store, progress=False)
        assert srv.stats()["requests"] == 5  # a1 and b1 share one request; b3 has no answer
    assert list(out.columns) == JUDGEMENT_COLUMNS
    got = out.set_index("cache_key")
    assert sorted(got.index) == ["a1", "a2", "a3", "b1", "b4", "b5"]
    assert got.loc["a1", "judge_key"] == got.loc["b1", "judge_key"] != got.loc["a2", "judge_key"]
    assert (got.loc["a1", "judge_score"], got.loc["a1", "judge_correct"]) == (1.0, True)
    assert (got.loc["a2", "judge_score"], got.loc["a2", "judge_correct"]) == (0.0, False)
    assert (got.loc["b4", "judge_score"], got.loc["b4", "judge_correct"]) == (pytest.approx(0.8), True)
    assert got.loc["b4", "inference_mode"] == "tcot"  # and it judged the extracted "9" (its reply was scripted)
    # the unparsable reply: an error with the reply quoted, no score (not a 0)
    assert got.loc["a3", "error_kind"] == "unparsable_verdict" and pd.isna(got.loc["a3", "judge_score"])
    assert "Hmm, hard to say." in got.loc["a3", "error_message"] and got.loc["a3", "judge_response"] == "Hmm, hard to say."
    assert got.loc["b5", "error_kind"] == "http_400" and pd.isna(got.loc["b5", "judge_response"])
    assert set(got["judge_name"]) == {"loopback_judge"} and set(got["judge_prompt_version"]) == {JUDGE_PROMPT_VERSION}
    assert got.loc[["a1", "a2", "b4"], "error_kind"].isna().all()

    # Rerun: only the failed request is sent; then nothing at all.
    with _server(extra={("q5", "2020"): "Verdict: correct"}) as srv:
        again = judgements_table(requests, predictions, QUESTIONS, _entry(srv), store, progress=False)
        assert srv.stats()["requests"] == 1
    with _server() as srv:
        third = judgements_table(requests, predictions, QUESTIONS, _entry(srv), store, progress=False)
        assert srv.stats()["requests"] == 0
    pd.testing.assert_frame_equal(again, third)
    assert third.set_index("cache_key").loc["b5", "judge_correct"] == True  # noqa: E712
    with PredictionStore(store) as s:  # the judge's answers are in the predictions store, under their own keys
        assert set(third["judge_key"]) <= s.answered_keys()

    # Another judge (or prompt version) has keys of its own: asked again.
    with _server() as srv:
        judgements_table(requests, predictions, QUESTIONS, _entry(srv, name="second_judge"), store, progress=False)
        assert srv.stats()["requests"] == 5
    with _server() as srv:
        old = judge_mod.JUDGE_PROMPT_VERSION
        judge_mod.JUDGE_PROMPT_VERSION = "judge-test"
        try:
            judgements_table(requests, predictions, QUESTIONS, _entry(srv), store, progress=False)
        finally:
            judge_mod.JUDGE_PROMPT_VERSION = old
        assert srv.stats()["requests"] == 5

    # The verdicts are the judge metric of eval_scores, in both scoring modes.
    scores = scores_table(requests, predictions, QUESTIONS, verdicts(third))
    judged = scores[scores.metric == "judge"]
    for mode in ("strict", "paper"):
        mine = judged[judged.scoring_mode == mode].set_index("cache_key")["value"].to_dict()
        # a3 had no verdict: no row; b3 had no answer: 0 (left out in paper mode)
        assert mine == {"a1": 1.0, "a2": 0.0, "b1": 1.0, "b4": pytest.approx(0.8), "b5": 1.0, "b3": 0.0}
    assert judged[(judged.cache_key == "b3") & (judged.scoring_mode == "paper")].left_out.all()
    other = scores[scores.metric == "cc"]
    assert len(other) == 2 * len(requests)  # every other metric keeps a row per request

    # Agreement with strict cc, per model and mode.
    agreement = judge_agreement(third, scores).set_index(["model_name", "inference_mode"])
    assert list(judge_agreement(third, scores).columns) == AGREEMENT_COLUMNS
    a = agreement.loc[("m_a", "direct")]
    assert (a.n_compared, a.n_judge_errors, a.n_both_correct, a.n_both_incorrect) == (2, 1, 1, 1)
    assert a.cohen_kappa == pytest.approx(1.0)
    b = agreement.loc[("m_b", "tcot")]  # the lenient verdict on a wrong sum
    assert (b.n_compared, b.n_judge_correct_cc_incorrect, b.observed_agreement, b.cohen_kappa) == (1, 1, 0.0, 0.0)
    assert agreement.loc[("m_b", "direct")].n_both_correct == 2


def test_a_verdict_for_an_unregistered_metric_or_twice_is_an_error():
    requests, predictions = _frames()
    with pytest.raises(ValueError, match=r"\['vibes'\] are not registered verdict metrics"):
        scores_table(requests, predictions, QUESTIONS, pd.DataFrame({"cache_key": ["a1"], "metric": ["vibes"],
                                                                     "value": [1.0]}))
    with pytest.raises(ValueError, match="request 'a1' has more than one 'judge' verdict"):
        scores_table(requests, predictions, QUESTIONS, pd.DataFrame({"cache_key": ["a1", "a1"],
                                                                     "metric": ["judge"] * 2, "value": [1.0, 0.0]}))


# ---------------------------------------------------------------- Cohen's kappa on known counts

def test_cohen_kappa_on_known_counts():
    observed, chance, kappa = cohen_kappa(20, 5, 10, 15)  # n 50: agree 35; judge yes 25, cc yes 30
    assert (observed, chance, kappa) == (pytest.approx(0.7), pytest.approx(0.5), pytest.approx(0.4))
    assert cohen_kappa(10, 0, 0, 10)[2] == pytest.approx(1.0)
    assert cohen_kappa(0, 10, 10, 0)[2] == pytest.approx(-1.0)
    assert math.isnan(cohen_kappa(7, 0, 0, 0)[2])  # both always say correct: undefined
    assert all(math.isnan(x) for x in cohen_kappa(0, 0, 0, 0))


def test_agreement_counts_from_judgements_and_scores():
    cells = [(True, 1.0)] * 20 + [(True, 0.0)] * 5 + [(False, 1.0)] * 10 + [(False, 0.0)] * 15
    judgements = pd.DataFrame({"judge_name": "j", "model_name": "m", "inference_mode": "direct",
                               "cache_key": [f"k{i}" for i in range(len(cells) + 2)],
                               "judge_correct": pd.array([c for c, _ in cells] + [None, None], dtype="boolean")})
    scores = pd.DataFrame({"cache_key": judgements.cache_key, "scoring_mode": "strict", "metric": "cc",
                           "value": [v for _, v in cells] + [1.0, 0.0]})
    row = judge_agreement(judgements, scores).iloc[0]
    assert (row.n_compared, row.n_judge_errors) == (50, 2)
    assert (row.n_both_correct, row.n_judge_correct_cc_incorrect, row.n_judge_incorrect_cc_correct,
            row.n_both_incorrect) == (20, 5, 10, 15)
    assert row.cohen_kappa == pytest.approx(0.4)
    with pytest.raises(ValueError, match="judged prediction 'k0' has no strict cc row"):
        judge_agreement(judgements, scores.iloc[1:])
    assert judge_agreement(judgements.iloc[:0], scores).empty


# ---------------------------------------------------------------- the judge metric in the regression

def test_the_regression_takes_the_judge_metric_without_it_dropping_rows_of_the_others():
    from evaluation_py.analysis.regression import property_regression
    from evaluation_py.testing.analysis_inputs import make_benchmark_inputs

    tables, questions, scores = make_benchmark_inputs(120, 3, ["m1"], seed=5)
    without = property_regression(scores, tables, questions)
    assert "judge" not in set(without.metric)  # no judge in the build: no judge rows
    strict_cc = scores[(scores.scoring_mode == "strict") & (scores.metric == "cc")]
    judged = strict_cc.iloc[::2]  # a verdict on every other prediction (the rest: judge errors)
    rows = judged.assign(metric="judge", value=judged["value"].to_numpy())
    with_judge = property_regression(pd.concat([scores, rows], ignore_index=True), tables, questions)
    fitted = with_judge[(with_judge.metric == "judge") & with_judge.coef.notna()]
    assert len(fitted) and set(fitted.n) == {len(judged)}
    pd.testing.assert_frame_equal(with_judge[with_judge.metric != "judge"].reset_index(drop=True),
                                  without.reset_index(drop=True))
