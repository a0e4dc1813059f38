"""Breakdown of model scores: see evaluation_py.analysis.breakdowns.scores_by_olap_operation."""
import json

from evaluation_py.analysis import scores_by_olap_operation
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    # each question's family declares its OLAP operation (int_registry_catalog)
    families = dbt.ref("int_registry_catalog").filter("kind = 'families'").project("name, attributes").df()
    operation = {name: json.loads(attributes).get("olap_operation")
                 for name, attributes in zip(families["name"], families["attributes"])}
    questions = dbt.ref("benchmark_questions").project("question_id, family").df()
    questions["olap_operation"] = questions["family"].map(operation)
    scores = dbt.ref("eval_scores").project(
        "model_name, inference_mode, scoring_mode, table_format, question_id, metric, value, left_out").df()
    return stamp(scores_by_olap_operation(scores, questions), dbt.ref("stg_build_config"))
