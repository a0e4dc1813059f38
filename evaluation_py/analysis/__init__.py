"""Analyses of HCT-QA scores (RQ1-RQ9 of the paper): property regressions,
breakdowns, benchmark composition, figures and an HTML report. Plain Python, no dbt.

The names below are a lazy front: each is imported from its module on first use, so a model reading one
analysis does not import SciPy and Matplotlib for all."""
from generator_py.core.lazy_front import lazy_front

_EXPORTS = {
    "REGRESSION_COLUMNS": "regression",
    "answer_verbosity": "breakdowns",
    "benchmark_composition": "composition",
    "model_order": "selection",
    "overall_scores": "breakdowns",
    "plot_aggregation_type_heatmap": "plots",
    "plot_coefficients_by_model": "plots",
    "plot_composition": "plots",
    "plot_composition_all": "plots",
    "plot_question_property_heatmap": "plots",
    "plot_template_heatmap": "plots",
    "plot_verbosity_recall": "plots",
    "primary_formats": "selection",
    "property_regression": "regression",
    "property_regressions": "regression",
    "scores_by_aggregation_type": "breakdowns",
    "scores_by_creation_type": "breakdowns",
    "scores_by_olap_operation": "breakdowns",
    "scores_by_question_property": "breakdowns",
    "scores_by_source_dataset": "breakdowns",
    "scores_by_table_format": "breakdowns",
    "scores_by_tables_read": "breakdowns",
    "scores_by_template": "breakdowns",
    "select_scores": "selection",
    "verbosity_correlation": "breakdowns",
    "write_report": "report",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_front(__name__, _EXPORTS, globals())
