"""Per model x table format x inference mode x scoring mode x metric, on the questions every model of that
group answered: the mean with a 95 % interval from a bootstrap resampling tables (evaluation_py.analysis.leaderboard).
The original questions only (the obfuscated twins: analysis_obfuscation_gap; the counterfactuals and paraphrases
have analyses of their own). The rows are recorded in the prediction
store under the build's fingerprint, where the builds of other seeds find them (analysis_seed_variance)."""
from evaluation_py.analysis.leaderboard import SCORE_INPUT_COLUMNS, leaderboard
from evaluation_py.dbt_glue.evaluation_inputs import store_path
from evaluation_py.running.results import ResultsIndex
from evaluation_py.running.runs import current_run_id
from generator_py.dbt_glue.build_config import database_path, fingerprint_of, stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    scores = frame(dbt.ref("eval_scores").project(", ".join(SCORE_INPUT_COLUMNS)))
    twins = {q for (q,) in dbt.ref("benchmark_questions").filter("coalesce(variant, 'original') <> 'original'")
             .project("question_id").fetchall()}
    out = in_child_process(leaderboard, scores[[q not in twins for q in scores["question_id"].tolist()]] if twins
                           else scores, seed_var(dbt.config.get("seed")))
    config = dbt.ref("stg_build_config")
    with ResultsIndex(store_path(dbt.config.get("eval_cache_dir"), database_path(session))) as index:
        index.record_leaderboard(fingerprint_of(config), out, current_run_id())
    return stamp(out, config)
