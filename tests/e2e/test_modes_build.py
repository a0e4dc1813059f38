"""End-to-end: one model in all four inference modes (direct, tcot, pot, icot) through real `dbt build`s.

The loopback OpenAI server answers every mode (pot with programs the test writes, some failing; icot
with echoes, so its episodes stop at max_turns); every evaluation and mode mart fills with the mode
as a column, a rebuild sends nothing and runs no code. Then the real local model (Gemma 3 270M behind
llama.cpp), on the session's TReB build, asked one question of a data-analysis and of a multi-step family (TReB's
DA and ADA skills, of two answer types) in all four modes: its code mostly fails, and the failures are recorded.
Its questions are on small tables (`max_table_cells`): on one CPU thread the prompt's tokens are most of its time.
"""
from __future__ import annotations

import pytest

from support.dbt_project import build_vars, clone, query, requests_for, run_dbt, server_key, treb_vars

pytestmark = pytest.mark.sandbox  # pot and icot run their programs in bubblewrap
MODES = ["direct", "tcot", "pot", "icot"]
ANALYSIS = ["analysis_scores_by_mode_family", "analysis_scores_by_treb_skill", "analysis_mode_gains",
            "analysis_execution_errors", "analysis_episode_turns", "analysis_mode_by_table_size"]
SELECT = ("--select", "models/evaluation", *ANALYSIS, "analysis_scores_by_template")
MAX_CELLS = 40  # the local model's tables: every DA and ADA family has questions on some this small


def executions_count(project) -> int:
    import sqlite3

    con = sqlite3.connect(project / "cache" / "predictions.sqlite")
    try:
        return con.execute("select count(*) from executions").fetchone()[0]
    finally:
        con.close()


def test_a_model_in_all_four_modes_fills_every_mart_and_a_rebuild_is_free(benchmark_base, tmp_path):
    from evaluation_py.backends.oracle_backend import gt_to_answer
    from evaluation_py.testing.fake_openai_server import FakeOpenAIServer

    project = clone(benchmark_base, tmp_path / "p")
    entry = {"name": "fake", "backend": "openai", "model": "m", "sample": 6, "modes": MODES, "max_turns": 2,
             "system_role": False, "max_retries": 0, "concurrency": 2}
    requests = requests_for(project, [{**entry, "base_url": "http://unused/v1"}])
    assert len(requests) == 6 * 4
    gt_of = dict(query(project, "select question_id, answer_gt from benchmark_questions"))
    pot = sorted((r for r in requests if r.inference_mode == "pot"), key=lambda r: r.question_id)
    answers = {server_key(r): f"```python\nanswer = {gt_to_answer(gt_of[r.question_id])!r}\n```" for r in pot[:3]}
    answers[server_key(pot[3])] = "```python\nanswer = df.iloc[0, 0] +\n```"  # syntax
    answers[server_key(pot[4])] = "```python\nanswer = int(df.iloc[0, 0]) / 0\n```"  # runtime
    # pot[5] is echoed: prose, a syntax error. direct and tcot answers are echoes too. icot: one block, whose
    # output is then echoed (no code, no marker), so each episode stops at max_turns.
    for r in requests:
        if r.inference_mode == "icot":
            answers[server_key(r)] = "Let me look.\n```python\nprint(df.shape[1])\n```"
    with FakeOpenAIServer(responses=answers) as srv:
        entry["base_url"] = srv.base_url
        args = ("build", *SELECT, "--vars", build_vars(eval_models=[entry]))
        run_dbt(project, *args)
        assert srv.stats()["requests"] == 6 * 3 + 6 * 2  # icot: two turns

        for mart in ("eval_requests", "eval_predictions", "eval_scores", "analysis_scores_by_mode_family"):
            assert {m for (m,) in query(project, f"select distinct inference_mode from {mart}")} == set(MODES), mart
        pot_rows = query(project, """select execution_error_kind, sandbox, code_blocks from eval_predictions
                                     where inference_mode = 'pot' order by question_id""")
        kinds = sorted(k or "ok" for k, _, _ in pot_rows)
        assert kinds == ["ok", "ok", "ok", "runtime", "syntax", "syntax"]
        assert {(s, n) for _, s, n in pot_rows} == {("bubblewrap", 1)}
        f1 = dict(query(project, """select inference_mode, value from eval_summary where level = 'overall'
                                    and scoring_mode = 'strict' and metric = 'f1'"""))
        assert f1["pot"] == pytest.approx(3 / 6)
        icot = query(project, """select turn, code_blocks, sandbox, execution_error_kind from eval_predictions
                                 where inference_mode = 'icot'""")
        assert icot == [(1, 1, "bubblewrap", None)] * 6
        follow_ups = query(project, """select user_message from eval_turns where inference_mode = 'icot'
                                       and turn = 1""")
        assert len(follow_ups) == 6 and all(m.startswith("Your code printed:\n") for (m,) in follow_ups)
        assert query(project, "select count(*), count(distinct cache_key) from eval_executions")[0] == (12, 12)
        outcomes = dict(query(project, """select outcome, n_runs from analysis_execution_errors
                                          where inference_mode = 'pot'"""))
        assert outcomes == {"ok": 3, "runtime": 1, "syntax": 2}
        assert query(project, "select turns_used, ended_at_final_answer, n_episodes from analysis_episode_turns") == [
            (2, False, 6)]
        pairs = set(query(project, "select distinct inference_mode, baseline_mode from analysis_mode_gains"))
        assert pairs == {("pot", "direct"), ("pot", "tcot"), ("icot", "direct"), ("icot", "tcot")}
        # the code modes' default prompt: the table's structure, not its cells (table_in_prompt: structure)
        versions = set(query(project, "select distinct inference_mode, prompt_version from eval_requests"))
        assert versions == {("direct", "hctqa-zeroshot-v1"), ("tcot", "hctqa-tcot-v1"),
                            ("pot", "hctqa-pot-structure-v1"), ("icot", "hctqa-icot-structure-v1")}
        # every mode's six predictions fall into the cell bins once per metric; the server reports prompt tokens
        by_size = query(project, """select inference_mode, size_measure, sum(n) from analysis_mode_by_table_size
                                    where scoring_mode = 'strict' and metric = 'f1' group by 1, 2""")
        assert {(m, s): n for m, s, n in by_size} == {(m, s): 6 for m in MODES for s in ("cells", "prompt_tokens")}
        runs = executions_count(project)

        srv.reset_counters()
        run_dbt(project, *args)
        assert srv.stats()["requests"] == 0 and executions_count(project) == runs


@pytest.mark.local_model
def test_the_local_model_in_all_four_modes_records_its_failures(treb_build, tmp_path):
    project = clone(treb_build, tmp_path / "p")
    # one family of each skill, of two answer types: what the reading and scoring of an answer depend on
    catalog = query(project, """select json_extract_string(attributes, '$.treb_skill'),
        json_extract_string(attributes, '$.answer_type'), name from intermediate.int_registry_catalog
        where kind = 'families' and json_extract_string(attributes, '$.treb_skill') in ('DA', 'ADA')
        and json_extract_string(attributes, '$.suite') = 'treb' order by all""")
    first = next(r for r in catalog if r[0] == "ADA")
    second = next(r for r in catalog if r[0] == "DA" and r[1] != first[1])
    families = sorted([first[2], second[2]])
    entry = {"name": "gemma270m", "backend": "llamacpp", "families": families, "sample_per_family": 1,
             "max_table_cells": MAX_CELLS, "formats": ["markdown"], "modes": MODES, "max_turns": 2, "n_ctx": 4096,
             "n_threads": 1, "params": {"max_tokens": 24}}
    # 2 families x 4 modes on one CPU thread. This model writes until max_tokens (about 40 ms a token here) and
    # its programs fail to parse at any length, so a longer limit would only make the test slower
    run_dbt(project, "build", *SELECT, "--vars", treb_vars(eval_models=[entry]), timeout=3600)
    asked = query(project, """select q.family, r.inference_mode, count(*) from eval_requests r
                              join benchmark_questions q using (question_id)
                              where r.model_name = 'gemma270m' and r.turn = 0 group by all""")
    assert {(f, m): n for f, m, n in asked} == {(f, m): 1 for f in families for m in MODES}
    largest = query(project, """select max(t.n_cells) from eval_requests r join benchmark_tables t using (table_id)
                                where r.model_name = 'gemma270m'""")[0][0]
    assert largest <= MAX_CELLS
    # every request ends in a prediction or a recorded error, whatever the family and mode
    answered = query(project, "select inference_mode, count(*) from eval_predictions where model_name = 'gemma270m' "
                              "group by 1")
    errors = query(project, "select error_kind from eval_prediction_errors where model_name = 'gemma270m'")
    assert sum(n for _, n in answered) + len(errors) == len(families) * 4, errors
    assert {m for m, _ in answered} == set(MODES)
    runs = query(project, "select inference_mode, sandbox, error_kind, output from eval_executions "
                          "where model_name = 'gemma270m'")
    pot_runs = [r for r in runs if r[0] == "pot"]
    assert len(pot_runs) == dict(answered)["pot"] and {r[1] for r in pot_runs} == {"bubblewrap"}
    from evaluation_py.sandbox.result import ERROR_KINDS

    assert all(k is None or k in ERROR_KINDS for _, _, k, _ in runs)
    # Scores exist for every request in every mode, a failed program scoring 0 in strict mode; each family's
    # subtask is scored by its own metric in every mode, and the skill gains compare the modes.
    failed = query(project, """select count(*) from eval_scores s join eval_predictions p using (cache_key)
                               where p.inference_mode = 'pot' and p.execution_error_kind is not null
                               and s.scoring_mode = 'strict' and s.metric = 'f1' and s.value <> 0""")
    assert failed == [(0,)]
    assert query(project, "select count(distinct inference_mode) from analysis_scores_by_mode_family "
                          "where model_name = 'gemma270m'")[0][0] == 4
    skills = set(query(project, """select treb_skill, inference_mode from analysis_scores_by_treb_skill
                                   where model_name = 'gemma270m' and treb_subtask is null and scoring_mode = 'strict'"""))
    assert skills == {(s, m) for s in ("DA", "ADA") for m in MODES}
    gains = set(query(project, """select treb_skill, inference_mode, baseline_mode from analysis_mode_gains
                                  where model_name = 'gemma270m' and level = 'treb_skill' and scoring_mode = 'strict'"""))
    assert gains == {(s, c, t) for s in ("DA", "ADA") for c in ("pot", "icot") for t in ("direct", "tcot")}
