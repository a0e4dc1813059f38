"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_olap_operation."""
from evaluation_py.analysis import scores_by_olap_operation
from generator_py.dbt_glue.build_config import stamp
from generator_py.questions.families import ALL_FAMILIES
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    # each question's family declares its OLAP operation (the registry, plugins included)
    operation = {name: ALL_FAMILIES.get(name).olap_operation for name in ALL_FAMILIES.names()}
    scored = dbt.ref("eval_scores")
    questions = frame(rows_scored(dbt.ref("benchmark_questions").project("question_id, family"), scored, "question_id"))
    questions["olap_operation"] = questions["family"].map(operation)
    scores = frame(scored.project(
        "model_name, inference_mode, scoring_mode, table_format, question_id, metric, value, left_out"))
    return stamp(scores_by_olap_operation(scores, questions), dbt.ref("stg_build_config"))
