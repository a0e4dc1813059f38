"""Effect of each table property and question property on per-question F1 and CC, per model under test and pooled.
Observational: the benchmark's tables and questions as drawn (the layout counterfactuals and the paraphrase
restatements are left out; analysis_layout_effect and analysis_paraphrase_consistency are theirs)."""
from evaluation_py.analysis.regression import property_regressions
from generator_py.dbt_glue.build_config import stamp
from generator_py.core.child_process import in_child_process
from generator_py.dbt_glue.relations import question_text_columns, table_text_columns, without_columns
from generator_py.dbt_glue.relations import frame, rows_scored


def model(dbt, session):
    dbt.config(materialized="table")
    drawn = "variant not in ('counterfactual', 'paraphrase')"
    questions = without_columns(dbt.ref("benchmark_questions"), question_text_columns()).filter(drawn)
    session.register("drawn_questions", questions.project("question_id"))
    scores = dbt.ref("eval_scores").filter("question_id in (select question_id from drawn_questions)")
    # the properties of the scored questions and their tables only: the fits look up nothing else
    out = in_child_process(property_regressions, frame(scores),
                           frame(rows_scored(without_columns(dbt.ref("benchmark_tables"), table_text_columns())
                                             .filter(drawn), scores, "table_id")),
                           frame(rows_scored(questions, scores, "question_id")))
    return stamp(out, dbt.ref("stg_build_config"))
