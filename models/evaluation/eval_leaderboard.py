"""Per model x table format x inference mode x scoring mode x metric, on the questions every model of that
group answered: the mean with a 95 % interval from a bootstrap resampling tables (evaluation_py.analysis.leaderboard).
The original questions only (the obfuscated twins: analysis_obfuscation_gap)."""
from evaluation_py.analysis.leaderboard import SCORE_INPUT_COLUMNS, leaderboard
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.core.child_process import in_child_process


def model(dbt, session):
    dbt.config(materialized="table")
    scores = dbt.ref("eval_scores").project(", ".join(SCORE_INPUT_COLUMNS)).df()
    twins = {q for (q,) in dbt.ref("benchmark_questions").filter("coalesce(variant, 'original') <> 'original'")
             .project("question_id").fetchall()}
    out = in_child_process(leaderboard, scores[[q not in twins for q in scores["question_id"].tolist()]] if twins
                           else scores, seed_var(dbt.config.get("seed")))
    return stamp(out, dbt.ref("stg_build_config"))
