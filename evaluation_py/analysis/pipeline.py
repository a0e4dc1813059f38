"""Everything at once: frames, figures and the HTML report (used by the benchmark and
handy for a quick look; the dbt models call the single functions)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from . import breakdowns as bd
from .composition import benchmark_composition
from .regression import property_regressions
from .leaderboard import leaderboard_of_scores as leaderboard
from .report import Table, write_report
from .report_build import models_evaluated, report_sections
from .selection import model_order
from .table_size import scores_by_table_size
from .treb_skills import QUESTION_COLUMNS, scores_by_treb_skill


def run_analysis(scores: pd.DataFrame, tables: pd.DataFrame, questions: pd.DataFrame, out_dir,
                 build_info: Mapping | None = None, scoring_mode: str = "strict", include_logit: bool = False,
                 timings: dict | None = None) -> dict:
    """Compute every frame, write every figure and ``index.html`` under ``out_dir`` (the
    figures and tables of the dbt build's report).

    Returns ``{'frames': {...}, 'plots': [...], 'report': path}``. ``timings``, when
    given, receives seconds per step."""
    t = timings if timings is not None else {}

    def step(name, fn, *a, **k):
        t0 = time.perf_counter()
        r = fn(*a, **k)
        t[name] = t.get(name, 0.0) + time.perf_counter() - t0
        return r

    out = Path(out_dir)
    order = step("model_order", model_order, scores, scoring_mode=scoring_mode)
    frames = {
        "overall": step("overall", bd.overall_scores, scores),
        "by_source_dataset": step("by_source_dataset", bd.scores_by_source_dataset, scores),
        "by_table_format": step("by_table_format", bd.scores_by_table_format, scores),
        "by_template": step("by_template", bd.scores_by_template, scores, questions),
        "by_question_property": step("by_question_property", bd.scores_by_question_property, scores, questions),
        "by_aggregation_type": step("by_aggregation_type", bd.scores_by_aggregation_type, scores, questions),
        "verbosity": step("verbosity", bd.answer_verbosity, scores),
    }
    frames["verbosity_correlation"] = bd.verbosity_correlation(frames["verbosity"])
    frames["composition"] = step("composition", benchmark_composition, tables, questions,
                                 include_question_properties=True)
    frames["regression"] = step("regression", property_regressions, scores, tables, questions,
                                include_logit=include_logit)
    for kind in ("table", "question"):
        frames[f"regression_{kind}"] = frames["regression"][frames["regression"]["property_kind"] == kind]

    frames["leaderboard"] = step("leaderboard", leaderboard, scores)
    if "creation_type" in questions.columns:
        frames["by_creation_type"] = step("by_creation_type", bd.scores_by_creation_type, scores, questions)
    if "n_tables" in questions.columns:  # benchmark_question_tables' count per question
        frames["by_tables_read"] = step("by_tables_read", bd.scores_by_tables_read, scores, questions)
    if "olap_operation" in questions.columns:  # its family's, from the registry
        frames["by_olap_operation"] = step("by_olap_operation", bd.scores_by_olap_operation, scores, questions)
    if {"table_id", "source", "template_id", "question"} <= set(questions.columns):
        from generator_py.questions.diversity import diversity_table

        frames["question_diversity"] = step("question_diversity", diversity_table,
                                            questions[["table_id", "source", "template_id", "question"]])
    if "n_cells" in tables.columns:  # no predictions here: the cells measure only
        frames["by_table_size"] = step("by_table_size", scores_by_table_size, scores, tables, None, 0, questions)
    if set(QUESTION_COLUMNS) <= set(questions.columns) and "table_id" in scores.columns:
        frames["by_treb_skill"] = step("by_treb_skill", scores_by_treb_skill, scores, questions, seed=0)
    t0 = time.perf_counter()
    sections, unanswered = report_sections(frames, scores, out / "figures", scoring_mode)
    t["plots"] = t.get("plots", 0.0) + time.perf_counter() - t0
    verbosity = next((s for s in sections if s.key == "verbosity"), None)
    if verbosity is not None:
        verbosity.tables.append(Table(frames["verbosity_correlation"], "Correlation of mean values given with each "
                                      "metric over the models under test (the oracle left out); RQ8 reads recall.",
                                      title="Verbosity and the metrics across models"))
    report = step("report", write_report, out, sections, dict(build_info or {}), models=models_evaluated(scores),
                  unanswered=unanswered)
    plots = [p for s in sections for p, _ in s.figures]
    return {"frames": frames, "plots": plots, "report": report, "model_order": order}
