"""Plots and reports/index.html from the analysis tables; one row per file written."""
from evaluation_py.analysis.report_build import build_report


def model(dbt, session):
    dbt.config(materialized="table")
    return build_report(
        out_dir=dbt.config.get("reports_dir"),
        scores=dbt.ref("eval_scores").df(),  # the models evaluated are listed from these, not from the var
        frames={
            "overall": dbt.ref("eval_summary").df(),
            "by_template": dbt.ref("analysis_scores_by_template").df(),
            "by_question_property": dbt.ref("analysis_scores_by_question_property").df(),
            "by_aggregation_type": dbt.ref("analysis_scores_by_aggregation_type").df(),
            "by_table_format": dbt.ref("analysis_scores_by_table_format").df(),
            "by_source_dataset": dbt.ref("analysis_scores_by_source_dataset").df(),
            "verbosity": dbt.ref("analysis_answer_verbosity").df(),
            "regression": dbt.ref("analysis_property_regression").df(),
            "composition": dbt.ref("analysis_benchmark_composition").df(),
        },
        build_info={
            "seed": dbt.config.get("seed"),
            "replicas": dbt.config.get("replicas"),
            "hctqa_release_dir": dbt.config.get("hctqa_release_dir"),
        },
    )
