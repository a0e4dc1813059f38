"""Consistency of each model's answers across the perturbed views of one question (TReB's robustness subtask):
see evaluation_py.analysis.robustness."""
from evaluation_py.analysis.robustness import QUESTION_COLUMNS, robustness_consistency, view_groups
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("benchmark_questions").filter("suite = 'treb'").project(
        ", ".join((*QUESTION_COLUMNS, "variant"))))
    # only the predictions of the questions asked on perturbed views are read (none in a build without them)
    session.register("perturbed_view_questions", view_groups(questions)[["question_id"]])
    asked = "question_id in (select question_id from perturbed_view_questions)"
    requests = frame(dbt.ref("eval_requests").filter(asked).project(
        "cache_key, question_id, table_id, model_name, table_format, inference_mode, turn"))
    session.register("perturbed_view_requests", requests[["cache_key"]])
    keys = "cache_key in (select cache_key from perturbed_view_requests)"
    predictions = frame(dbt.ref("eval_predictions").filter(keys))
    scores = frame(dbt.ref("eval_scores").filter(f"metric = 'exact_match' and scoring_mode = 'strict' and {keys}").project(
        "cache_key, scoring_mode, metric, value"))
    out = robustness_consistency(requests, predictions, scores, questions, seed_var(dbt.config.get("seed")))
    return stamp(out, dbt.ref("stg_build_config"))
