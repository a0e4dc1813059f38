"""Effect of each table property and question property on per-question F1 and CC, per model under test and pooled.
Observational: the benchmark's tables and questions as drawn (the layout counterfactuals and the paraphrase
restatements are left out; analysis_layout_effect and analysis_paraphrase_consistency are theirs)."""
from evaluation_py.analysis.regression import property_regressions
from generator_py.dbt_glue.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    drawn = "variant not in ('counterfactual', 'paraphrase')"
    questions = dbt.ref("benchmark_questions").filter(drawn)
    session.register("drawn_questions", questions.project("question_id"))
    out = property_regressions(
        dbt.ref("eval_scores").filter("question_id in (select question_id from drawn_questions)").df(),
        dbt.ref("benchmark_tables").filter(drawn).df(), questions.df())
    return stamp(out, dbt.ref("stg_build_config"))
