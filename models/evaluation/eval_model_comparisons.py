"""Every pair of models under test (the baselines are not) on the questions both answered: the mean paired
difference with its table-clustered bootstrap interval, a p value and the p values BH-adjusted across pairs
(evaluation_py.analysis.leaderboard). The original questions only."""
from evaluation_py.analysis.leaderboard import SCORE_INPUT_COLUMNS, comparisons
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    scores = frame(dbt.ref("eval_scores").project(", ".join(SCORE_INPUT_COLUMNS)))
    twins = {q for (q,) in dbt.ref("benchmark_questions").filter("coalesce(variant, 'original') <> 'original'")
             .project("question_id").fetchall()}
    out = comparisons(scores[[q not in twins for q in scores["question_id"].tolist()]] if twins else scores,
                      seed_var(dbt.config.get("seed")))
    return stamp(out, dbt.ref("stg_build_config"))
