"""Gain of pot and icot over direct and tcot per family and per TReB skill: see
evaluation_py.analysis.mode_comparison."""
from evaluation_py.analysis.mode_comparison import mode_gains
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    by_family = frame(dbt.ref("analysis_scores_by_mode_family")).drop(columns=["build_fingerprint"])
    by_skill = frame(dbt.ref("analysis_scores_by_treb_skill")).drop(columns=["build_fingerprint"])
    return stamp(mode_gains(by_family, by_skill), dbt.ref("stg_build_config"))
