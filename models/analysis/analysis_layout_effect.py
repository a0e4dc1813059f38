"""The causal effect of each table property on every metric, from the layout counterfactuals, beside the
observational estimates (evaluation_py.analysis.layout_effect)."""
from evaluation_py.analysis.layout_effect import QUESTION_COLUMNS, SCORE_COLUMNS, TABLE_COLUMNS, layout_effects
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.vars import seed_var
from generator_py.release.properties import TABLE_PROPERTY_COLUMNS
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    tables = dbt.ref("benchmark_tables")
    if not tables.filter("counterfactual_set_id is not null").limit(1).fetchall():  # no sets in this build
        scores = frame(dbt.ref("eval_scores").limit(0).project(", ".join(SCORE_COLUMNS)))
    else:
        scores = frame(dbt.ref("eval_scores").project(", ".join(SCORE_COLUMNS)))
    out = layout_effects(scores, frame(dbt.ref("benchmark_questions").project(", ".join(QUESTION_COLUMNS))),
                         frame(tables.project(", ".join(TABLE_COLUMNS + TABLE_PROPERTY_COLUMNS))),
                         frame(dbt.ref("analysis_property_regression")), seed_var(dbt.config.get("seed")))
    return stamp(out, dbt.ref("stg_build_config"))
