"""Analyses of HCT-QA scores (RQ1-RQ9 of the paper): property regressions,
breakdowns, benchmark composition, figures and an HTML report. Plain Python, no dbt."""

from .breakdowns import (
    answer_verbosity,
    overall_scores,
    scores_by_aggregation_type,
    scores_by_creation_type,
    scores_by_olap_operation,
    scores_by_question_property,
    scores_by_source_dataset,
    scores_by_table_format,
    scores_by_tables_read,
    scores_by_template,
    verbosity_correlation,
)
from .composition import benchmark_composition
from .plots import (
    plot_aggregation_type_heatmap,
    plot_coefficients_by_model,
    plot_composition,
    plot_composition_all,
    plot_question_property_heatmap,
    plot_template_heatmap,
    plot_verbosity_recall,
)
from .regression import REGRESSION_COLUMNS, property_regression, property_regressions
from .report import write_report
from .selection import model_order, primary_formats, select_scores

__all__ = [
    "REGRESSION_COLUMNS",
    "answer_verbosity",
    "benchmark_composition",
    "model_order",
    "overall_scores",
    "plot_aggregation_type_heatmap",
    "plot_coefficients_by_model",
    "plot_composition",
    "plot_composition_all",
    "plot_question_property_heatmap",
    "plot_template_heatmap",
    "plot_verbosity_recall",
    "primary_formats",
    "property_regression",
    "property_regressions",
    "scores_by_aggregation_type",
    "scores_by_creation_type",
    "scores_by_olap_operation",
    "scores_by_question_property",
    "scores_by_source_dataset",
    "scores_by_table_format",
    "scores_by_tables_read",
    "scores_by_template",
    "select_scores",
    "verbosity_correlation",
    "write_report",
]
