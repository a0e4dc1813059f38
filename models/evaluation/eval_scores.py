"""Every registered metric of every request, in both scoring modes, long: one row per request x scoring mode x metric
(the judge metric only where eval_judgements has a verdict)."""
from evaluation_py.scoring.judge import verdicts
from evaluation_py.scoring.scores import INSTRUCTION_COLUMN, SCORE_QUESTION_COLUMNS, scores_table
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    questions = dbt.ref("benchmark_questions").project(", ".join((*SCORE_QUESTION_COLUMNS, INSTRUCTION_COLUMN))).df()
    judged = verdicts(dbt.ref("eval_judgements").project("cache_key, judge_score").df())
    out = scores_table(dbt.ref("eval_requests").df(), dbt.ref("eval_predictions").df(), questions, judged)
    return stamp(out, dbt.ref("stg_build_config"))
