"""End-to-end: the evaluation models in real `dbt build`s at small scale.

Covers the default baselines, the openai backend over real HTTP against the fake OpenAI server
(faults, bounded concurrency, the cache making a rebuild free, failed requests retried next build),
a build killed mid-run and resumed, the replay backend on the HCT-QA release sample reproducing the
published scores. Bad `eval_models` entries: tests/unit/test_model_specs.py (and one build in
test_build_guards.py).

The benchmark (one domain, one replica) is built once per module, without its tests (fixture
`benchmark_base`, tests/conftest.py); each test builds the evaluation models on a copy of it. Singular data tests (tests/data: quality checks of the
generated benchmark, covered by test_generator_build) are left out of these builds.
"""
from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from support.dbt_project import build_vars, clone, query, requests_for, run_dbt, server_key, spawn_dbt, store_keys


def scored_metrics(project: Path) -> list[str]:
    """The metrics every prediction is scored by, as the build's registry catalog lists them (a judge's
    verdict metric only where a judge ran; a partial one only on the questions it is about)."""
    return [n for (n,) in query(project, """select name from intermediate.int_registry_catalog
                                            where kind = 'metrics' and json_extract_string(attributes, '$.reads') <> 'verdict'
                                              and not json_extract(attributes, '$.partial')::boolean
                                            order by name""")]


# SQL: a metric row of a metric every prediction has (a partial one scores only the questions it is about)
NOT_PARTIAL = """metric not in (select name from intermediate.int_registry_catalog
                                where kind = 'metrics' and json_extract(attributes, '$.partial')::boolean)"""

# ---------------------------------------------------------------------------------------------- 1. baselines
def test_default_baselines_oracle_perfect_header_match_per_template(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    run_dbt(project, "build", "--select", "models/evaluation", "int_registry_catalog", "--vars", build_vars())

    models = {m for (m,) in query(project, "select distinct model_name from eval_summary")}
    assert models == {"oracle", "header_match"}
    # Default entries run the one-turn `direct` mode: every request is its episode's first and final turn.
    from evaluation_py.prompting.prompts import PROMPT_VERSION
    per_request = ("direct", "generate", 0, None, PROMPT_VERSION)
    for mart in ("eval_requests", "eval_predictions"):
        assert query(project, f"select distinct inference_mode, kind, turn, parent_key, prompt_version from {mart}") == [
            per_request], mart
    assert query(project, "select count(*) from eval_turns")[0][0] == 0
    # the oracle has every metric at its best (1, or 0 for a rate of mistakes such as false_refusal)
    oracle = query(project, """
        select s.level, s.scoring_mode, list(distinct s.metric order by s.metric) filter (where not c.partial),
               bool_and(s.value = c.best)
        from eval_summary s join (
            select name as metric, json_extract(attributes, '$.partial')::boolean as partial,
                   json_extract(attributes, '$.best')::double as best
            from intermediate.int_registry_catalog where kind = 'metrics') c using (metric)
        where s.model_name = 'oracle' group by all""")
    assert {(lvl, mode) for lvl, mode, *_ in oracle} == {
        (lvl, mode) for lvl in ("overall", "source", "dataset", "template") for mode in ("strict", "paper")}
    for level, mode, metric_names, all_best in oracle:
        assert metric_names == scored_metrics(project) and len(metric_names) >= 4 and all_best, (level, mode)

    templates = {t for (t,) in query(project, "select distinct template_id from benchmark_questions")}
    for mode in ("strict", "paper"):
        got = query(project, """
            select template_id, n from eval_summary
            where model_name = 'header_match' and level = 'template' and scoring_mode = ? and metric = 'f1'""",
                    [mode])
        assert {t for t, _ in got} == templates
        assert all(n > 0 for _, n in got)
    (n_overall,) = query(project, """
        select n from eval_summary where model_name = 'header_match' and level = 'overall' and scoring_mode = 'strict'
        and metric = 'f1'""")[0]
    (n_questions,) = query(project, "select count(*) from benchmark_questions where variant = 'original'")[0]
    assert n_overall == min(3000, n_questions)


# ---------------------------------------------------------------------------------------------- 2. openai
def test_openai_backend_faults_concurrency_cache_and_retry_of_failures(benchmark_base, tmp_path):
    from evaluation_py.backends.oracle_backend import gt_to_answer
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(benchmark_base, tmp_path / "p")
    entry = {"name": "fake", "backend": "openai", "model": "m", "sample": 40, "concurrency": 4,
             "max_retries": 2, "backoff_base_s": 0.05, "backoff_max_s": 0.2, "timeout_s": 20}
    requests = requests_for(project, [{**entry, "base_url": "http://unused/v1"}])
    assert len(requests) == 40
    keys = [server_key(r) for r in requests]
    assert len(set(keys)) == 40
    by_key = dict(zip(keys, requests))
    k429, k500, kdrop, kfail = keys[3], keys[11], keys[19], keys[27]
    script = {k429: ["429"], k500: ["500", "500"], kdrop: ["drop"], kfail: ["500"] * 50}
    gt_of = dict(query(project, "select question_id, answer_gt from benchmark_questions"))
    answers = {k: gt_to_answer(gt_of[r.question_id]) for k, r in by_key.items()}

    with FakeOpenAIServer(script=script, responses=answers, retry_after="1") as srv:
        entry["base_url"] = srv.base_url
        args = ("build", "--select", "models/evaluation", "--vars", build_vars(eval_models=[entry]))

        # First build: every fault but the permanent one is retried to an answer.
        run_dbt(project, *args)
        stats = srv.stats()
        assert stats["max_in_flight"] <= 4
        assert stats["faults"] == {"429": 1, "500": 2 + 3, "drop": 1}
        assert stats["requests"] == 40 + 1 + 2 + 1 + 2  # the failing key: 3 attempts (max_retries 2)
        assert query(project, "select count(*), count(distinct cache_key) from eval_requests")[0] == (40, 40)
        assert query(project, "select count(*), count(distinct cache_key) from eval_predictions")[0] == (39, 39)
        failed = by_key[kfail].cache_key
        assert query(project, "select count(*) from eval_predictions where cache_key = ?", [failed])[0][0] == 0
        assert query(project, "select cache_key, error_kind, attempts from eval_prediction_errors") == [
            (failed, "http_500", 3)]
        attempts = dict(query(project, "select cache_key, attempts from eval_predictions"))
        assert attempts[by_key[k429].cache_key] == 2
        assert attempts[by_key[k500].cache_key] == 3
        assert attempts[by_key[kdrop].cache_key] == 2
        responses = dict(query(project, "select cache_key, response from eval_predictions"))
        assert responses[by_key[k429].cache_key] == answers[k429]
        assert query(project, """select count(*) from eval_scores where model_name = 'fake'
                                 and metric = 'f1'""")[0][0] == 80
        strict = query(project, """select n, value from eval_summary where model_name = 'fake' and level = 'overall'
                                   and scoring_mode = 'strict' and metric = 'f1'""")
        assert strict[0][0] == 40 and strict[0][1] == pytest.approx(39 / 40)

        # Second build: only the failed request is sent again (the server now answers it).
        srv.script.pop(kfail)
        srv.reset_counters()
        run_dbt(project, *args)
        stats = srv.stats()
        assert stats["requests"] == 1 and set(srv.attempts) == {kfail}
        assert query(project, "select count(*), count(distinct cache_key) from eval_predictions")[0] == (40, 40)
        assert query(project, "select count(*) from eval_prediction_errors")[0][0] == 0

        # Third build, same vars: everything is cached, nothing is sent, nothing is added.
        srv.reset_counters()
        run_dbt(project, *args)
        assert srv.stats()["requests"] == 0
        assert query(project, "select count(*), count(distinct cache_key) from eval_predictions")[0] == (40, 40)
        strict = query(project, """select n, value from eval_summary where model_name = 'fake' and level = 'overall'
                                   and scoring_mode = 'strict' and metric = 'f1'""")
        assert strict == [(40, 1.0)]


# ---------------------------------------------------------------------------------------------- 3. interrupted
def test_killed_build_resumes_without_resending_stored_answers(benchmark_base, tmp_path):
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(benchmark_base, tmp_path / "p")
    entry = {"name": "slow", "backend": "openai", "model": "m", "sample": 60, "concurrency": 2}
    requests = requests_for(project, [{**entry, "base_url": "http://unused/v1"}])
    assert len({r.cache_key for r in requests}) == 60
    key_of = {r.cache_key: server_key(r) for r in requests}

    with FakeOpenAIServer(latency_s=0.4) as srv:
        entry["base_url"] = srv.base_url
        args = ["build", "--select", "models/evaluation", "--vars", build_vars(eval_models=[entry])]
        proc = spawn_dbt(project, *args)
        try:
            deadline = time.monotonic() + 240
            while not store_keys(project):
                assert proc.poll() is None, "dbt finished before any prediction was stored"
                assert time.monotonic() < deadline, "no prediction stored in time"
                time.sleep(0.1)
            os.killpg(proc.pid, signal.SIGKILL)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        stored = store_keys(project)
        assert 0 < len(stored) < 60
        assert srv.stats()["max_in_flight"] <= 2

        srv.reset_counters()
        run_dbt(project, *args)
        stats = srv.stats()
        missing = set(key_of) - stored
        # The rerun sent exactly the requests the store lacked, each once, and none it had.
        assert stats["requests"] == len(missing)
        assert set(srv.attempts) == {key_of[k] for k in missing}
        assert not set(srv.attempts) & {key_of[k] for k in stored}
        assert stats["requests"] + len(stored) == 60  # unique keys, no faults
    assert query(project, "select count(*), count(distinct cache_key) from eval_predictions")[0] == (60, 60)
    assert {k for (k,) in query(project, "select cache_key from eval_predictions")} == set(key_of)
    assert len(store_keys(project)) == 60


# ---------------------------------------------------------------------------------------------- 4. replay
PAPER_BY_DATASET = {  # the reference README: dataset -> (questions, precision, recall, F1, CC)
    "psa": (93, 0.4182, 0.4138, 0.3870, 0.2907),
    "arxiv": (27, 0.1605, 0.1442, 0.1327, 0.1111),
    "census": (16, 0.1429, 0.1905, 0.1599, 0.1429),
    "pak": (58, 0.5367, 0.5250, 0.5080, 0.3621),
}


def _summary(project: Path, **where) -> list[tuple]:
    cond = " and ".join(f"{k} = ?" for k in where)
    by_metric = ", ".join(f"max(value) filter (where metric = '{m}')" for m in ("precision", "recall", "f1", "cc"))
    return query(project, f"""select n, n_left_out, {by_metric}, dataset from eval_summary
                               where model_name = 'gemma' and {cond} group by n, n_left_out, dataset
                               order by dataset""", list(where.values()))


def test_replay_of_release_responses_reproduces_published_scores(release_build):
    project = release_build
    (n_real,) = query(project, "select count(*) from benchmark_questions where source = 'real'")[0]
    assert n_real == 194
    assert query(project, "select count(*) from eval_predictions where model_name = 'gemma'")[0][0] == 194
    # paper: the release's published numbers (n: predictions scored, n_left_out beside it); strict: this
    # project's reading of the same responses (as the scoring CLI gives it: tests/unit/test_scoring.py)
    for mode, expected in (("paper", (185, 9, 0.3969, 0.3924, 0.3706, 0.2757)),
                           ("strict", (194, 0, 0.3854, 0.3752, 0.3573, 0.2629))):
        for level in ("overall", "source"):
            rows = _summary(project, scoring_mode=mode, level=level)
            assert len(rows) == 1, (mode, level, rows)
            n, n_left_out, *scores, _ = rows[0]
            assert (n, n_left_out) == expected[:2], (mode, level)
            assert [round(s, 4) for s in scores] == list(expected[2:]), (mode, level)
    rows = _summary(project, scoring_mode="paper", level="dataset")
    got = {ds: (n + n_left_out, *[round(s, 4) for s in scores]) for n, n_left_out, *scores, ds in rows}
    assert got == PAPER_BY_DATASET
    # 9 "No Answer" and 5 empty responses gave no answer, in both modes' rows
    assert query(project, """select scoring_mode, unanswered from eval_summary where model_name = 'gemma'
                             and level = 'overall' and metric = 'f1' order by scoring_mode""") == [("paper", 14), ("strict", 14)]
    # every registered metric of every prediction, in both scoring modes; the requests carry their inference mode
    n_metrics = len(scored_metrics(project))
    assert n_metrics >= 4
    assert query(project, """select count(*), count(distinct metric), list(distinct inference_mode)
                             from eval_scores where model_name = 'gemma' and """ + NOT_PARTIAL) == [
        (194 * 2 * n_metrics, n_metrics, ["direct"])]
    # every question of the release is answerable: false_refusal scores each, the other partial metrics none
    assert query(project, """select metric, count(*) from eval_scores where model_name = 'gemma' and not """
                 + NOT_PARTIAL + " group by 1") == [("false_refusal", 194 * 2)]


# ---------------------------------------------------------------------------------------------- sampling
def test_models_with_the_same_sample_answer_the_same_questions(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    eval_models = [{"name": "a", "backend": "oracle", "sample": 30}, {"name": "b", "backend": "header_match", "sample": 30},
                   {"name": "c", "backend": "oracle", "sample": 60}]
    run_dbt(project, "build", "--select", "eval_requests", "--vars", build_vars(eval_models=eval_models))
    chosen = {m: set(q) for m, q in query(project, "select model_name, list(question_id) from eval_requests group by 1")}
    assert len(chosen["a"]) == 30 and chosen["a"] == chosen["b"]
    assert len(chosen["c"]) == 60 and chosen["a"] < chosen["c"]
