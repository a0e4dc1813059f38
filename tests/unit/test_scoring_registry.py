"""Scoring as extraction plus a metric registry: the metrics of a match, the filters, long eval_scores, and a
toy metric and a toy filter registered from here flowing through eval_scores, eval_summary, a breakdown and
the regression with no library edit."""
from __future__ import annotations

import re
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from evaluation_py.scoring import extraction, metrics
from generator_py.core.registry import RegistryError, UnknownNameError
from evaluation_py.analysis import breakdowns as bd
from evaluation_py.analysis import plots
from evaluation_py.analysis.regression import property_regression
from evaluation_py.testing.analysis_inputs import make_questions, make_tables
from evaluation_py.scoring.metrics import Match
from generator_py.core.child_process import map_in_child_processes
from evaluation_py.scoring.scores import SCORE_COLUMNS, mean_scores, score_one, scores_table, to_long

ROOT = Path(__file__).resolve().parents[2]
HCTQA_METRICS = ("precision", "recall", "f1", "cc")


# ---------------------------------------------------------------- metrics of a match

@pytest.mark.parametrize("match,expected", [
    (Match(2, 1, 4, 1), (0.5, 0.25, 2 * 0.5 * 0.25 / 0.75, 0.0)),
    (Match(1, 1, 1, 1), (1.0, 1.0, 1.0, 1.0)),
    (Match(3, 3, 2, 2), (1.0, 1.0, 1.0, 1.0)),  # three values read, two of them the same gt value by number
    (Match(0, 0, 3, 0), (0.0, 0.0, 0.0, 0.0)),  # unanswered
    (Match(2, 0, 0, 0), (0.0, 0.0, 0.0, 0.0)),  # an empty ground truth is never completely contained
])
def test_hctqa_metrics_of_a_match(match, expected):
    got = tuple(metrics.get(m).score(match) for m in HCTQA_METRICS)
    assert got == pytest.approx(expected, abs=0)


def test_registry_order_and_errors():
    assert metrics.names()[:4] == HCTQA_METRICS
    assert metrics.is_binary("cc") and not metrics.is_binary("f1")
    with pytest.raises(RegistryError, match="metric 'f1' is registered already"):
        metrics.register("f1", metrics.f1, "again")
    with pytest.raises(ValueError, match="identifier"):
        metrics.register("f 1", metrics.f1, "a space")
    with pytest.raises(UnknownNameError, match="unknown metric 'recal'; did you mean recall?"):
        metrics.get("recal")
    with pytest.raises(LookupError, match="unknown metric 'meteor' \\(registered: precision, recall"):
        metrics.get("meteor")


# ---------------------------------------------------------------- extraction filters

def test_direct_is_the_response_and_final_answer_takes_the_last_marker():
    assert extraction.extract(["x", None, float("nan")], "direct") == ["x", None, None]
    text = "Let me think. Final answer: 3 is wrong.\nSo... Final Answer: 40 || 86"
    assert extraction.extract([text], "tcot") == ["40 || 86"]
    assert extraction.final_answer("no marker at all") == "no marker at all"
    assert extraction.filter_name_for("icot") == "final_answer"


def test_an_inference_mode_without_a_filter_is_an_error_naming_it():
    with pytest.raises(UnknownNameError, match="unknown extraction filter 'telepathy'.*registered: direct, final_answer"):
        extraction.extract(["x"], "telepathy")
    with pytest.raises(TypeError, match="extraction filter 'nope' must be a function"):
        extraction.register_filter("nope", "not a function", modes=["telepathy"])
    assert "nope" not in extraction.filter_names()


def test_a_registered_inference_mode_names_its_own_filter():
    from evaluation_py.modes import inference_mode as im

    mode = im.InferenceMode(name="toy_reasoning", prompt_version="toy-v1", build_messages=im.build_messages,
                            extraction="final_answer")
    im.register_mode(mode)
    try:
        assert extraction.filter_name_for("toy_reasoning") == "final_answer"
        assert extraction.extract(["I think... Final answer: 7"], "toy_reasoning") == ["7"]
    finally:
        im.MODES.unregister("toy_reasoning")
    with pytest.raises(UnknownNameError, match="unknown extraction filter 'toy_reasoning'"):
        extraction.filter_name_for("toy_reasoning")


def test_the_filter_changes_what_paper_mode_reads():
    cot = "The table shows 40 for women.\nFinal answer: 40"
    assert score_one(cot, "{40}", "paper", "direct")["f1"] == 0.0
    assert score_one(cot, "{40}", "paper", "tcot")["f1"] == 1.0


# ---------------------------------------------------------------- eval_scores, long

def _inputs(n_tables=60, per_table=4, models=("m_good", "m_bad"), inference_mode=None, seed=0):
    """Requests, predictions and questions as the eval_* models see them; answers planted to be worse on
    tables with a row group label."""
    tables = make_tables(n_tables, seed=seed)
    questions = make_questions(tables, per_table, seed=seed + 1)
    questions["source"], questions["dataset"] = "synthetic", "accidents"
    questions["answer_gt"] = [f"{{{i % 7} | x{i % 3}}}" for i in range(len(questions))]
    hard = questions["table_id"].map(tables.set_index("table_id")["row_group_label"]).to_numpy()
    rng = np.random.default_rng(seed)
    requests, predictions = [], []
    for k, model in enumerate(models):
        for i, q in enumerate(questions.itertuples()):
            key = f"{model}--{q.question_id}"
            right = rng.random() < (0.8 - 0.4 * hard[i] - 0.2 * k)
            values = [str(i % 7), f"x{i % 3}"] if right else [str(i % 7)] if rng.random() < 0.5 else ["nope"]
            response = " || ".join(values)
            if inference_mode is not None:
                response = f"thinking about {q.question_id}\n{response}"
            requests.append({"cache_key": key, "question_id": q.question_id, "table_id": q.table_id,
                             "model_name": model, "backend": "fake", "model": model, "table_format": "html",
                             **({"inference_mode": inference_mode} if inference_mode else {})})
            predictions.append({"cache_key": key, "response": None if i % 29 == 0 else response})
    return tables, questions, pd.DataFrame(requests), pd.DataFrame(predictions)


def test_eval_scores_is_one_row_per_request_scoring_mode_and_metric():
    _, questions, requests, predictions = _inputs(n_tables=10, per_table=2)
    scores = scores_table(requests, predictions, questions[["question_id", "source", "dataset", "template_id",
                                                              "answer_gt"]])
    assert list(scores.columns) == SCORE_COLUMNS
    # every prediction has a row of every metric but the partial ones (none applies to these questions, bar
    # false_refusal: every one of them is answerable)
    every = [m for m in metrics.scored_names() if not metrics.get(m).partial] + ["false_refusal"]
    assert len(scores) == len(requests) * 2 * len(every)
    assert set(scores.metric) == set(every)
    assert not scores.duplicated(["cache_key", "scoring_mode", "metric"]).any()
    assert set(scores.inference_mode) == {"direct"}  # requests without the column are direct
    # the long rows hold what score_one gives for the same response
    row = requests.iloc[1]
    response = predictions.set_index("cache_key").loc[row.cache_key, "response"]
    gt = questions.set_index("question_id").loc[row.question_id, "answer_gt"]
    for mode in ("strict", "paper"):
        one = score_one(response, gt, mode)
        got = scores[(scores.cache_key == row.cache_key) & (scores.scoring_mode == mode)].set_index("metric")
        assert {m: got.loc[m, "value"] for m in HCTQA_METRICS} == {m: one[m] for m in HCTQA_METRICS}
        assert bool(got["left_out"].iloc[0]) == one["left_out"]
    # a missing response: unanswered in both modes, left out in paper mode only
    missing = scores[scores.cache_key == requests.iloc[0].cache_key]
    assert missing.unanswered.all() and set(missing[missing.left_out].scoring_mode) == {"paper"}


def test_eval_scores_of_rows_shared_between_two_children_are_those_scored_here(monkeypatch):
    from evaluation_py.scoring import scores as scores_module

    _, questions, requests, predictions = _inputs(n_tables=10, per_table=2)
    questions = questions[["question_id", "source", "dataset", "template_id", "answer_gt"]]
    shares = []

    def spied(fn, items):
        shares.append(len(items))
        return map_in_child_processes(fn, items)

    monkeypatch.setattr(scores_module, "map_in_child_processes", spied)
    monkeypatch.setattr(scores_module, "PARALLEL_ROWS", 10 ** 9)
    here = scores_table(requests, predictions, questions)
    monkeypatch.setattr(scores_module, "PARALLEL_ROWS", 2)
    shared = scores_table(requests, predictions, questions)
    assert shares == [1, 2]
    pd.testing.assert_frame_equal(shared, here)


def test_a_null_inference_mode_is_an_error_naming_the_request():
    _, questions, requests, predictions = _inputs(n_tables=2, per_table=1)
    requests["inference_mode"] = ["direct", None] * (len(requests) // 2)
    with pytest.raises(ValueError, match=r"inference_mode is NULL for request\(s\) \['m_good--q"):
        scores_table(requests, predictions, questions)


def test_mean_scores_leaves_left_out_rows_out_and_counts_them():
    long = to_long(pd.DataFrame({"g": ["a", "a", "b"], "f1": [1.0, 0.0, 0.5], "cc": [1.0, 0.0, 0.0],
                                 "left_out": [False, True, False], "unanswered": [False, True, False]}),
                   ["f1", "cc"])
    out = mean_scores(long, ["g"], count_unanswered=True)
    assert out.to_dict("records") == [
        {"g": "a", "metric": "cc", "value": 1.0, "n": 1, "n_left_out": 1, "unanswered": 1},
        {"g": "a", "metric": "f1", "value": 1.0, "n": 1, "n_left_out": 1, "unanswered": 1},
        {"g": "b", "metric": "cc", "value": 0.0, "n": 1, "n_left_out": 0, "unanswered": 0},
        {"g": "b", "metric": "f1", "value": 0.5, "n": 1, "n_left_out": 0, "unanswered": 0}]


# ---------------------------------------------------------------- a toy metric and a toy filter, from here

def _exact_set(m: Match) -> float:
    """1 when the answer holds exactly the ground truth's values, nothing more."""
    return float(m.n_given == m.n_given_matched == m.n_expected == m.n_expected_matched > 0)


def _last_line(response):
    return response.strip().rsplit("\n", 1)[-1]


@pytest.fixture
def toys():
    metrics.register("exact_set", _exact_set, "the answer's values are the ground truth's", binary=True)
    metrics.register("n_values_read", lambda m: float(m.n_given), "values read from the answer")
    extraction.register_filter("toy_last_line", _last_line, modes=["toy_mode"])  # a mode of another harness
    assert extraction.filter_name_for("toy_mode") == "toy_last_line"
    yield
    metrics.unregister("exact_set")
    metrics.unregister("n_values_read")
    extraction.unregister_filter("toy_last_line")
    with pytest.raises(UnknownNameError):  # unregistering the filter took its mode's naming away
        extraction.filter_name_for("toy_mode")


def _eval_summary(scores: pd.DataFrame) -> pd.DataFrame:
    """models/evaluation/eval_summary.sql itself, its refs read from in-memory tables."""
    sql = (ROOT / "models" / "evaluation" / "eval_summary.sql").read_text(encoding="utf-8")
    sql = re.sub(r"\{\{\s*ref\('(\w+)'\)\s*\}\}", r"\1", sql)
    con = duckdb.connect()
    con.register("eval_scores", scores)
    con.execute("create table benchmark_questions as select distinct question_id, 'original' as variant from eval_scores")
    con.execute("create table stg_build_config as select 'fp' as build_fingerprint")
    return con.sql(sql).df()


def test_toy_metric_and_filter_flow_through_scores_summary_breakdown_and_regression(toys, tmp_path):
    tables, questions, requests, predictions = _inputs(inference_mode="toy_mode")
    scores = scores_table(requests, predictions, questions)
    # the partial metrics that apply to no question here (none is unanswerable or states an instruction) have no row
    assert set(scores.metric) == {*HCTQA_METRICS, "exact_match", "rouge_l", "bleu", "false_refusal", "exact_set",
                                  "n_values_read"}
    assert set(scores.inference_mode) == {"toy_mode"}
    # the toy filter read the last line; the direct reading keeps the reasoning, which paper mode cannot match
    def paper_f1(s):
        return s[(s.scoring_mode == "paper") & (s.metric == "f1") & ~s.left_out].value.mean()

    direct = scores_table(requests.assign(inference_mode="direct"), predictions, questions)
    assert paper_f1(scores) > paper_f1(direct) + 0.3

    summary = _eval_summary(scores)
    overall = summary[(summary.level == "overall") & (summary.scoring_mode == "strict")].set_index(
        ["model_name", "metric"])
    strict = scores[scores.scoring_mode == "strict"]
    for model in ("m_good", "m_bad"):
        mine = strict[(strict.model_name == model) & (strict.metric == "exact_set")]
        assert overall.loc[(model, "exact_set"), "value"] == pytest.approx(mine.value.mean())
        assert overall.loc[(model, "exact_set"), "n"] == len(mine)
        assert overall.loc[(model, "exact_set"), "inference_mode"] == "toy_mode"
    # summary and breakdown average alike (mean_scores is eval_summary's Python twin)
    by_format = bd.scores_by_table_format(scores, scoring_mode="strict").set_index(["model_name", "metric"])
    for key in [("m_good", "exact_set"), ("m_bad", "n_values_read"), ("m_bad", "f1")]:
        assert by_format.loc[key, "value"] == pytest.approx(overall.loc[key, "value"])

    by_template = bd.scores_by_template(scores, questions)
    assert {"exact_set", "n_values_read"} <= set(by_template.metric)
    figure = plots.plot_template_heatmap(by_template, tmp_path, metric="exact_set")
    assert figure.endswith("heatmap_template_exact_set.png") and Path(figure).stat().st_size > 15000  # a "no data" placeholder is about 8 kB

    reg = property_regression(scores, tables, questions, pooled=False)
    toy = reg[(reg.metric == "exact_set") & reg.dropped_reason.isna()]
    assert set(toy.model_type) == {"linear_probability_ols"}  # registered as binary
    assert set(reg[reg.metric == "n_values_read"].model_type) == {"ols"}
    planted = toy[toy.property == "row_group_label"]
    assert len(planted) == 2 and (planted.coef < 0).all()  # both models are worse on row-group tables
