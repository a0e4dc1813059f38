"""Scores by model x inference mode x table-size bin (cells, prompt tokens): see evaluation_py.analysis.table_size."""
from evaluation_py.analysis.table_size import scores_by_table_size
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    scored = dbt.ref("eval_scores")
    scores = frame(scored)
    # the tables and questions scored, not every one (GBs at 10x scale)
    tables = frame(rows_scored(dbt.ref("benchmark_tables").project("table_id, n_cells"), scored, "table_id"))
    predictions = frame(dbt.ref("eval_predictions").project("cache_key, prompt_tokens"))
    questions = frame(rows_scored(dbt.ref("benchmark_questions").project("question_id, variant"), scored, "question_id"))
    out = in_child_process(scores_by_table_size, scores, tables, predictions, seed_var(dbt.config.get("seed")),
                           questions)
    return stamp(out, dbt.ref("stg_build_config"))
