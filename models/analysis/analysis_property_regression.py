"""Effect of each table property and question property on per-question F1 and CC, per model and pooled."""
import pandas as pd

from evaluation_py.analysis import property_regression
from evaluation_py.analysis.inputs import analysis_scores
from generator_py.build_config import stamp


def model(dbt, session):
    dbt.config(materialized="table")
    scores = analysis_scores(dbt.ref("eval_scores").df())
    tables = dbt.ref("benchmark_tables").df()
    questions = dbt.ref("benchmark_questions").df()
    fits = [property_regression(scores, tables, questions, kind=kind).assign(property_kind=kind)
            for kind in ("table", "question")]
    return stamp(pd.concat(fits, ignore_index=True), dbt.ref("stg_build_config"))
