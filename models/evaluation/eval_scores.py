"""Every registered metric of every request, in both scoring modes, long: one row per request x scoring mode x metric
(the judge metric only where eval_judgements has a verdict)."""
from evaluation_py.scoring.judge import verdicts
from evaluation_py.scoring.scores import INSTRUCTION_COLUMN, SCORE_QUESTION_COLUMNS, scores_table
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    requests = dbt.ref("eval_requests")
    # the questions asked, not every question (GBs at 10x scale)
    questions = frame(rows_scored(dbt.ref("benchmark_questions").project(
        ", ".join((*SCORE_QUESTION_COLUMNS, INSTRUCTION_COLUMN))), requests, "question_id"))
    judged = verdicts(frame(dbt.ref("eval_judgements").project("cache_key, judge_score")))
    out = scores_table(frame(requests), frame(dbt.ref("eval_predictions")), questions, judged)
    return stamp(out, dbt.ref("stg_build_config"))
