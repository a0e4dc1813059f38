"""Text versus image per model (RQ10): see evaluation_py.analysis.modality.text_vs_image."""
from evaluation_py.analysis.modality import text_vs_image
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    out = text_vs_image(frame(dbt.ref("analysis_scores_by_table_format")))
    return stamp(out, dbt.ref("stg_build_config"))
