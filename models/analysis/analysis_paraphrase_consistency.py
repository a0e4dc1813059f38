"""Whether each model answers a question the same way in every phrasing of its template, and how far its score
moves between them (evaluation_py.analysis.paraphrase_consistency)."""
from evaluation_py.analysis.paraphrase_consistency import QUESTION_COLUMNS, paraphrase_consistency
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    questions = frame(dbt.ref("benchmark_questions").filter("paraphrase_set_id is not null").project(
        ", ".join(QUESTION_COLUMNS)))
    session.register("paraphrase_questions", questions[["question_id"]])
    member = "question_id in (select question_id from paraphrase_questions)"
    out = paraphrase_consistency(frame(dbt.ref("eval_requests").filter(member)),
                                 frame(dbt.ref("eval_predictions").filter(member)), questions,
                                 frame(dbt.ref("eval_scores").filter(member)), seed_var(dbt.config.get("seed")))
    return stamp(out, dbt.ref("stg_build_config"))
