"""Per model x table format x inference mode x scoring mode x metric: the mean with a 95 % table-resampling
bootstrap interval (evaluation_py/analysis/leaderboard.py), over the original questions."""
from evaluation_py.analysis.leaderboard import leaderboard
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    scores = dbt.ref("eval_scores").project(
        "model_name, backend, table_format, inference_mode, scoring_mode, metric, question_id, table_id, value, "
        "left_out").df()
    variants = dbt.ref("benchmark_questions").project("question_id, variant").df()
    return stamp(leaderboard(scores, variants), dbt.ref("stg_build_config"))
