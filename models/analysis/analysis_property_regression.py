"""Effect of each table property and question property on per-question F1 and CC, per model and pooled."""
import pandas as pd

from evaluation_py.analysis import property_regression


def model(dbt, session):
    dbt.config(materialized="table")
    scores = dbt.ref("eval_scores").df()
    tables = dbt.ref("benchmark_tables").df()
    questions = dbt.ref("benchmark_questions").df()
    fits = [property_regression(scores, tables, questions, kind=kind).assign(property_kind=kind)
            for kind in ("table", "question")]
    return pd.concat(fits, ignore_index=True)
