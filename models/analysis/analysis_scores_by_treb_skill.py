"""Scores by TReB skill and subtask, each subtask by its own metric, with table-clustered intervals: see
evaluation_py.analysis.treb_skills."""
from evaluation_py.analysis.leaderboard import SCORE_INPUT_COLUMNS
from evaluation_py.analysis.treb_skills import QUESTION_COLUMNS, scores_by_treb_skill
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    scored = dbt.ref("eval_scores")
    scores = frame(scored.project(", ".join(SCORE_INPUT_COLUMNS)))
    questions = frame(rows_scored(dbt.ref("benchmark_questions").project(", ".join((*QUESTION_COLUMNS, "variant"))),
                                  scored, "question_id"))
    out = in_child_process(scores_by_treb_skill, scores, questions, seed_var(dbt.config.get("seed")))
    return stamp(out, dbt.ref("stg_build_config"))
