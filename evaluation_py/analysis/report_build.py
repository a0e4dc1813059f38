"""The report of a build as a results section: the leaderboard first, then one section per research question
the build's results can answer (its figures, each with a caption saying what it shows and how to read it,
and short tables with the SQL that returns every row), then the questions it cannot answer, each with what
would answer it. Used by the dbt model analysis_report and by :func:`pipeline.run_analysis`.

The baselines (oracle: the ground truth, a check of the chain; header_match) are shown once, beside the
leaderboard; every other section is about the models under test.
"""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from . import plots
from .leaderboard import leaderboard_of_scores as leaderboard
from .report import Section, Table, Unanswered, write_report
from .schema import AGGREGATION_TYPES, POOLED, QUESTION_PROPERTY_LABELS, property_label, template_label
from ..configuration.model_specs import BASELINE_NAMES
from generator_py.core.child_process import map_in_child_processes
from .selection import is_oracle, left_out_mask, model_order, primary_formats

BASELINES = BASELINE_NAMES
NOT_BASELINE = f"model_name not in ({', '.join(repr(n) for n in BASELINE_NAMES)})"
SHOWN_METRICS = ("f1", "cc")
ORACLE_NOTE = "The oracle answers with the ground truth (a check of the chain) and is in no fit."
ROLES = {"oracle": "baseline: the ground truth (a check of the chain)",
         "header_match": "baseline: the cells whose header paths the question names"}


def models_evaluated(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per model x table format of the build: its backend and model id, the
    predictions made, how many paper mode left out, and whether it is a model under test."""
    cols = ["model_name", "backend", "model", "table_format", "primary_format", "predictions",
            "n_left_out_paper", "role"]
    if scores.empty:
        return pd.DataFrame(columns=cols)
    keys = [c for c in ("model_name", "backend", "model", "table_format") if c in scores.columns]
    # Every prediction has one row per scoring mode and metric: count it once.
    if "metric" in scores.columns:
        scores = scores[scores["metric"] == scores["metric"].iloc[0]]
    one_mode = scores[scores["scoring_mode"] == "strict"] if "scoring_mode" in scores.columns else scores
    out = one_mode.groupby(keys, dropna=False, sort=True).size().rename("predictions").reset_index()
    lo = scores[left_out_mask(scores)].groupby(keys, dropna=False).size().rename("n_left_out_paper").reset_index()
    out = out.merge(lo, on=keys, how="left")
    out["n_left_out_paper"] = out["n_left_out_paper"].fillna(0).astype("int64")
    out["primary_format"] = out["model_name"].map(primary_formats(scores))
    oracle = is_oracle(out)
    out["role"] = [ROLES["oracle"] if o else ROLES.get(m, "model under test") for m, o in zip(out["model_name"], oracle)]
    return out[[c for c in cols if c in out.columns]]


def baseline_names(scores: pd.DataFrame) -> set[str]:
    """The baselines' model names: the two by name, and whatever the oracle backend answered."""
    return set(BASELINES) | set(scores.loc[is_oracle(scores), "model_name"]) if len(scores) else set(BASELINES)


def _under_test(df: pd.DataFrame, baselines: set[str]) -> pd.DataFrame:
    if df is None or df.empty or "model_name" not in df.columns:
        return df if df is not None else pd.DataFrame()
    return df[~df["model_name"].isin(baselines)]


def _strict(df: pd.DataFrame, mode: str) -> pd.DataFrame:
    return df[df["scoring_mode"] == mode] if len(df) and "scoring_mode" in df.columns else df


def _sql(select: str, mart: str, where: str | None, order: str) -> str:
    return f"select {select}\nfrom {mart}\n" + (f"where {where}\n" if where else "") + f"order by {order}"


def _wide(df: pd.DataFrame, keys: list[str], metrics=SHOWN_METRICS, extra: tuple[str, ...] = ("n",)) -> pd.DataFrame:
    """Long breakdown rows -> one row per ``keys``, a column per shown metric, then ``extra`` (of the
    first metric's row)."""
    df = df[df["metric"].isin(list(metrics))]
    if df.empty:
        return pd.DataFrame(columns=[*keys, *metrics, *extra])
    index = df[keys].astype(object).where(df[keys].notna(), "")
    wide = pd.concat([index, df[["metric", "value"]]], axis=1).pivot_table(
        index=keys, columns="metric", values="value", aggfunc="first", sort=False)
    present = [m for m in metrics if m in wide.columns]
    out = wide[present].reset_index()
    first = df[df["metric"] == present[0]]
    if extra:
        rest = pd.concat([index.loc[first.index], first[list(extra)]], axis=1)
        out = out.merge(rest, on=keys, how="left")
    return out


def _ordered(df: pd.DataFrame, order: list[str], then: list[str]) -> pd.DataFrame:
    rank = {m: i for i, m in enumerate(order)}
    return df.assign(_r=df["model_name"].map(rank).fillna(len(rank))).sort_values(
        ["_r", *then], kind="stable").drop(columns="_r").reset_index(drop=True)


def _interval(lo, hi) -> str:
    return "" if not (np.isfinite(lo) and np.isfinite(hi)) else f"[{lo:.3f}, {hi:.3f}]"


def leaderboard_table(board: pd.DataFrame, metrics=SHOWN_METRICS) -> pd.DataFrame:
    """Leaderboard rows of one scoring mode, wide: per model x format x mode each shown metric's mean and
    95 % interval, the questions and tables, best first metric on top."""
    keys = ["model_name", "backend", "table_format", "inference_mode"]
    rows = []
    for key, g in board.groupby(keys, sort=False, dropna=False):
        row = dict(zip(keys, key))
        by = g.set_index("metric")
        for m in metrics:
            if m in by.index:
                row[m] = by.at[m, "mean"]
                row[f"{m} 95% interval"] = _interval(by.at[m, "ci_low"], by.at[m, "ci_high"])
        row["n_questions"] = int(g["n_questions"].max())
        row["n_tables"] = int(g["n_tables"].max())
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return out.sort_values([metrics[0], "model_name"], ascending=[False, True], kind="stable").reset_index(drop=True)


class _Builder:
    def __init__(self, frames: Mapping[str, pd.DataFrame], scores: pd.DataFrame, fig_dir, mode: str):
        self.frames, self.scores, self.fig_dir, self.mode = frames, scores, Path(fig_dir), mode
        self.baselines = baseline_names(scores)
        order = model_order(scores, scoring_mode=mode) if len(scores) else []
        self.order = [m for m in order if m not in self.baselines]
        self.sections: list[Section] = []
        self.unanswered: list[Unanswered] = []
        self.where = f"scoring_mode = '{mode}' and {NOT_BASELINE}"
        self.reading = f"{mode} scoring, each model on its primary table format"

    def frame(self, key: str) -> pd.DataFrame:
        df = self.frames.get(key)
        return df if df is not None else pd.DataFrame()

    def tested(self, key: str) -> pd.DataFrame:
        return _strict(_under_test(self.frame(key), self.baselines), self.mode)

    def add(self, section: Section | None, title: str, remedy: str) -> None:
        if section is None:
            self.unanswered.append(Unanswered(title, remedy))
        else:
            self.sections.append(section)


def _leaderboard(b: _Builder) -> Section | None:
    board = b.frame("leaderboard")
    board = _strict(board, b.mode)
    if board.empty:
        return None
    fig = plots.plot_means_with_intervals(
        board, b.fig_dir, "leaderboard.png", f"Mean F1 and complete containment (CC) per model ({b.mode} scoring, "
        f"95% table-resampling bootstrap intervals)", label_columns=("table_format", "inference_mode"),
        baselines=sorted(b.baselines))
    under = _under_test(board, b.baselines)
    base = board[board["model_name"].isin(b.baselines)]
    sql = _sql("model_name, backend, table_format, inference_mode, metric, mean, ci_low, ci_high, n_questions, "
               "n_tables, n_left_out", "eval_leaderboard", f"scoring_mode = '{b.mode}'",
               "metric, mean desc, model_name")
    tables = []
    if len(under):
        tables.append(Table(leaderboard_table(under), "Models under test, best F1 first: each metric's mean over "
                            "the model's original questions and its 95% interval (2.5th to 97.5th percentile of "
                            "1,000 means of tables drawn with replacement); n: the questions and tables it is "
                            "over.", sql.replace("where ", f"where {NOT_BASELINE} and ", 1)))
    if len(base):
        tables.append(Table(leaderboard_table(base), "The baselines, once: the oracle answers with the ground truth "
                            "(1 everywhere: the scoring chain is sound), header_match gives the cells whose header "
                            "paths the question names.", sql.replace("where ", "where model_name in ('oracle', "
                                                                     "'header_match') and ", 1), "Baselines"))
    return Section("leaderboard", "Leaderboard: how well does each model answer?",
                   "Every model evaluated on this benchmark, with an interval that accounts for questions on one "
                   "table not being independent.",
                   [(fig, "Each row is a model on one table format and inference mode; the point is its mean F1 "
                          "(left) and CC (right) and the bar its 95% interval from resampling tables, so two "
                          "models whose bars overlap much are not told apart by this benchmark; baselines grey, "
                          "best F1 on top.")], tables)


def _by_model(df: pd.DataFrame, column: str, order: list[str], metric: str = "f1",
              row_order: tuple = ()) -> pd.DataFrame:
    """One row per value of ``column``, one column of ``metric`` per model (per model / mode when a model has
    several inference modes), models in ``order``: the table beside a heatmap, read like it."""
    df = df[df["metric"] == metric]
    several = df.groupby("model_name")["inference_mode"].nunique().gt(1).any()
    rank = {m: i for i, m in enumerate(order)}
    df = df.assign(_col=[f"{m} / {i}" if several else str(m) for m, i in zip(df["model_name"], df["inference_mode"])],
                   _rank=df["model_name"].map(rank).fillna(len(rank)))
    cols = list(dict.fromkeys(df.sort_values(["_rank", "_col"], kind="stable")["_col"]))
    wide = df.pivot_table(index=column, columns="_col", values="value", aggfunc="first")
    rows = [r for r in row_order if r in wide.index] + [r for r in wide.index if r not in set(row_order)]
    return wide.reindex(index=rows, columns=cols).reset_index().rename_axis(columns=None)


def _heatmap_section(b: _Builder, key: str, column: str, title: str, intro: str, draw: Callable, caption: str,
                     label: Callable | None, mart: str, name: str, row_order: tuple = ()) -> Section | None:
    df = b.tested(key)
    if df.empty:
        return None
    fig = draw(df, b.fig_dir, "f1", b.mode, b.order)
    table = _by_model(df, column, b.order, row_order=row_order)
    models = [c for c in table.columns if c != column]
    if label is not None:
        table[column] = table[column].map(label)
    table = table.rename(columns={column: name})
    sql = _sql(f"model_name, inference_mode, {column}, metric, value, n, n_left_out", mart, b.where,
               f"model_name, inference_mode, {column}, metric")
    return Section(key, title, intro, [(fig, caption)],
                   [Table(table, f"Mean F1 per {name} (rows) and model (columns, best first; {b.mode} scoring); "
                                 f"every metric, with the number of questions, is in the query's rows.", sql,
                          verbatim=tuple(models))])


def _templates(b: _Builder) -> Section | None:
    return _heatmap_section(
        b, "by_template", "template_id", "Which question templates are hard?",
        "The synthetic questions come from the 15 SQL templates of HCT-QA's Table III.",
        plots.plot_template_heatmap,
        f"Mean F1 of each model (rows, best on top) on each question template (columns; the paper's Figure 39; "
        f"{b.reading}): a dark column is a template every model finds hard, a dark cell one model's weakness.",
        template_label, "analysis_scores_by_template", "question template")


def _question_properties(b: _Builder) -> Section | None:
    return _heatmap_section(
        b, "by_question_property", "property", "Which kinds of question are hard?",
        "A question counts under every property it has, so the columns overlap.",
        plots.plot_question_property_heatmap,
        f"Mean F1 of each model (rows) over the questions having each question property (columns; the paper's "
        f"Figure 9a; {b.reading}): compare a column with the model's leaderboard mean to see what a property costs.",
        property_label, "analysis_scores_by_question_property", "question property", tuple(QUESTION_PROPERTY_LABELS))


def _aggregation(b: _Builder) -> Section | None:
    return _heatmap_section(
        b, "by_aggregation_type", "aggregation_type", "Which aggregate functions are hard?",
        "The aggregation questions, by the function they ask for.",
        plots.plot_aggregation_type_heatmap,
        f"Mean F1 of each model (rows) on the aggregation questions of each function (columns; the paper's "
        f"Figure 9b; {b.reading}): a column darker than the others is a function the models compute badly.",
        None, "analysis_scores_by_aggregation_type", "aggregate function", AGGREGATION_TYPES)


def _regression(b: _Builder, kind: str) -> Section | None:
    regression = b.frame("regression")
    if regression.empty:
        return None
    fit = regression[(regression["property_kind"] == kind) & ~regression["model_name"].isin(b.baselines)]
    if fit.empty:
        return None
    fits = [POOLED, *b.order] + sorted(set(fit["model_name"]) - {POOLED, *b.order})
    models = sorted(set(fit["model_name"]) - {POOLED})
    pooled = (fit["model_name"] == POOLED).any()
    panels = ("The first panel pools the models under test (a fixed effect per model), then one panel per model. "
              if pooled else f"One panel per model under test (a pooled fit needs two models, this build has "
                             f"{len(models)}). ")
    from .regression import model_type_of

    def reason(metric: str) -> str:
        est = fit[(fit["metric"] == metric) & fit["dropped_reason"].isna() & fit["coef"].notna()]
        if len(est):
            return ""
        return " Not estimated: " + plots.not_estimated_reason(fit, metric, model_type_of(metric), fits) + "."

    figs = []
    thing = "its table has" if kind == "table" else "it has"
    metrics = ("f1", "cc") if kind == "table" else ("f1",)
    for metric in metrics:
        mtype = model_type_of(metric)
        name = f"coefficients_{kind}_{metric}.png"
        what = "F1 (OLS" if metric == "f1" else "complete containment (linear probability model"
        path = plots.plot_coefficients_by_model(fit, b.fig_dir, fits, metric, model_type=mtype, filename=name,
                                                title=f"Effect of {kind} properties on {what}, 95% CI clustered "
                                                      f"by table)")
        unit = "F1" if metric == "f1" else "the probability that the answer holds every ground-truth value"
        figs.append((path, f"The estimated change in {unit} of a question when {thing} each property (rows), "
                           f"{'against a standard relational table, ' if kind == 'table' else ''}with its 95% "
                           f"interval clustered by table: a point left of the line is a property that makes "
                           f"questions harder, filled when significant after Benjamini-Hochberg adjustment. "
                           + panels + ORACLE_NOTE + reason(metric)))
    cols = ["model_name", "metric", "property", "coef", "ci_low", "ci_high", "p_value_adjusted", "significant",
            "n", "n_tables"]
    shown = fit[fit["metric"].isin(metrics)]
    est = shown[shown["dropped_reason"].isna() & shown["coef"].notna()]
    # the pooled fit first, then the significant effects, strongest evidence first
    est = est.assign(property=est["property"].map(property_label), _p=est["model_name"] != POOLED,
                     _s=~est["significant"].fillna(False).astype(bool)).sort_values(
        ["_p", "_s", "p_value_adjusted", "model_name", "metric"], kind="stable")
    est = est[[c for c in cols if c in est.columns]]
    rest = shown[shown["dropped_reason"].notna()]
    # a structural reason (a parent flag, the reference level) holds for every fit: said once per property
    rest = (rest.assign(property=rest["property"].map(property_label),
                        fit=rest["model_name"].astype(str) + " " + rest["metric"].astype(str))
            .groupby(["property", "dropped_reason"], sort=False)["fit"].agg(", ".join).reset_index()
            .rename(columns={"fit": "fits (model, metric)"}))
    where = f"property_kind = '{kind}' and {NOT_BASELINE}"
    tables = []
    if len(est):
        tables.append(Table(est.reset_index(drop=True), f"The estimates drawn above ({', '.join(metrics)}); "
                            "p_value_adjusted: Benjamini-Hochberg across the fit's properties.",
                            _sql("model_name, metric, model_type, property, coef, std_err_clustered, ci_low, ci_high, "
                                 "p_value_adjusted, significant, n, n_tables, note", "analysis_property_regression",
                                 where + " and dropped_reason is null", "model_name, metric, property")))
    if len(rest):
        tables.append(Table(rest.reset_index(drop=True), "Properties a fit could not estimate, and why.",
                            _sql("model_name, metric, property, dropped_reason", "analysis_property_regression",
                                 where + " and dropped_reason is not null", "model_name, metric, property"),
                            "Not estimated"))
    title = ("Which table properties make questions harder?" if kind == "table"
             else "Which question properties make questions harder, the others held fixed?")
    return Section(f"regression_{kind}", title, "A regression of each question's score on the properties at once "
                   "(strict scores), so each effect is net of the others.", figs, tables)


def _verbosity(b: _Builder) -> Section | None:
    df = b.tested("verbosity")
    if df.empty:
        return None
    fig = plots.plot_verbosity_recall(_strict(b.frame("verbosity"), b.mode)[lambda d: ~d["model_name"].isin(
        b.baselines)], b.fig_dir, b.mode, b.order)
    keys = ["model_name", "inference_mode", "mean_values_given", "mean_values_expected", "verbosity_ratio"]
    table = _ordered(_wide(df, keys, ("recall", "precision", "f1")), b.order, ["inference_mode"])
    return Section("verbosity", "Do longer answers buy recall?", "Listing more values finds more of the answer but "
                   "costs precision (the paper's RQ8).",
                   [(fig, f"Each point is a model: the mean number of distinct values it answers (x) against its "
                          f"mean recall (y; the paper's Figure 38, {b.mode} scoring); the dashed line is how many "
                          f"values the answers hold, so a point right of it over-answers.")],
                   [Table(table, "verbosity_ratio: values given / values expected.",
                          _sql("model_name, inference_mode, mean_values_given, mean_values_expected, "
                               "verbosity_ratio, metric, value, n", "analysis_answer_verbosity", b.where,
                               "model_name, inference_mode, metric"))])


def _sources(b: _Builder) -> Section | None:
    df = b.tested("by_source_dataset")
    if df.empty:
        return None
    labelled = df.assign(dataset=df["source"].astype(str) + ": " + df["dataset"].astype(str))
    fig = plots.heatmap(labelled, "dataset", "f1", b.fig_dir, "heatmap_dataset_f1.png",
                        f"F1 by model and source: dataset ({b.mode})", "source: dataset", model_order=b.order,
                        scoring_mode=b.mode)
    table = _ordered(_wide(df, ["model_name", "inference_mode", "source", "dataset"]), b.order,
                     ["inference_mode", "source", "dataset"])
    return Section("by_source_dataset", "Do real and synthetic questions differ?",
                   "The release's real questions and the generated synthetic ones, by dataset or domain.",
                   [(fig, f"Mean F1 of each model (rows) on the questions of each source and dataset (columns; "
                          f"{b.reading}): compare the real columns with the synthetic ones.")],
                   [Table(table, "Mean F1 and CC per model, source and dataset; n: questions.",
                          _sql("model_name, inference_mode, source, dataset, metric, value, n, n_left_out",
                               "analysis_scores_by_source_dataset", b.where,
                               "model_name, inference_mode, source, dataset, metric"))])


def _creation_type(b: _Builder) -> Section | None:
    df = b.tested("by_creation_type")
    if df.empty:
        return None
    labelled = df.assign(creation_type=df["creation_type"].astype(str))
    fig = plots.heatmap(labelled, "creation_type", "f1", b.fig_dir, "heatmap_creation_type_f1.png",
                        f"F1 by model and how the question was made ({b.mode})", "creation type",
                        model_order=b.order, scoring_mode=b.mode)
    table = _ordered(_wide(df, ["model_name", "inference_mode", "creation_type"]), b.order,
                     ["inference_mode", "creation_type"])
    return Section("by_creation_type", "Do hand-written and model-written questions differ?",
                   "The release marks each real question as written by hand (`manual`) or by a model "
                   "(`model_generated`); ours are `synthetic` (the paper's Figure 8).",
                   [(fig, f"Mean F1 of each model (rows) per creation type (columns; {b.reading}).")],
                   [Table(table, "Mean F1 and CC per model and creation type; n: questions.",
                          _sql("model_name, inference_mode, creation_type, metric, value, n, n_left_out",
                               "analysis_scores_by_creation_type", b.where,
                               "model_name, inference_mode, creation_type, metric"))])


def _tables_read(b: _Builder) -> Section | None:
    df = b.tested("by_tables_read")
    if df.empty or not (df["n_tables"] == 2).any():
        return None
    labels = {1: "one table", 2: "two tables"}
    fig = plots.heatmap(df, "n_tables", "f1", b.fig_dir, "heatmap_tables_read_f1.png",
                        f"F1 by model and tables read ({b.mode})", "tables the question reads",
                        model_order=b.order, column_order=[1, 2], column_labels=labels, scoring_mode=b.mode)
    table = _ordered(_wide(df, ["model_name", "inference_mode", "n_tables"]), b.order, ["inference_mode", "n_tables"])
    return Section("by_tables_read", "Can the models combine two tables?",
                   "The questions over two tables (suite beyond) read the question's table and a partner of the "
                   "same measure in other years: the change of one cell between them (a join), an aggregate over "
                   "both (a union), a cell of the second chosen by a ranking in the first. Their prompts show both "
                   "tables; the questions over one table are every other question of the build.",
                   [(fig, f"Mean F1 of each model (rows) on the questions reading one table and two tables "
                          f"(columns; {b.reading}): the gap is what combining two tables costs.")],
                   [Table(table, "Mean F1 and CC per model and number of tables read; n: questions.",
                          _sql("model_name, inference_mode, n_tables, metric, value, n, n_left_out",
                               "analysis_scores_by_tables_read", b.where,
                               "model_name, inference_mode, n_tables, metric"))])


def _olap(b: _Builder) -> Section | None:
    df = b.tested("by_olap_operation")
    if df.empty or set(df["olap_operation"]) <= {"none"}:
        return None
    order = ["none"] + sorted(set(df["olap_operation"]) - {"none"})
    fig = plots.heatmap(df, "olap_operation", "f1", b.fig_dir, "heatmap_olap_operation_f1.png",
                        f"F1 by model and OLAP operation ({b.mode})", "OLAP operation", model_order=b.order,
                        column_order=order, column_labels={"none": "other questions"}, scoring_mode=b.mode)
    table = _ordered(_wide(df, ["model_name", "inference_mode", "olap_operation"]), b.order,
                     ["inference_mode", "olap_operation"])
    return Section("by_olap_operation", "Can the models answer at levels the table does not show?",
                   "The OLAP questions (suite beyond): a roll-up to a level of a hierarchy the table shows no "
                   "aggregate of, a drill-down from a shown aggregate to its largest part, and grouping sets (the "
                   "aggregate for each label of one attribute, of another, and overall).",
                   [(fig, f"Mean F1 of each model (rows) per OLAP operation, beside every other question of the "
                          f"build (columns; {b.reading}).")],
                   [Table(table, "Mean F1 and CC per model and OLAP operation; n: questions.",
                          _sql("model_name, inference_mode, olap_operation, metric, value, n, n_left_out",
                               "analysis_scores_by_olap_operation", b.where,
                               "model_name, inference_mode, olap_operation, metric"))])


def _formats(b: _Builder) -> Section | None:
    board = _under_test(_strict(b.frame("leaderboard"), b.mode), b.baselines)
    if board.empty:
        return None
    counts = board.groupby("model_name")["table_format"].nunique()
    several = counts[counts > 1].index
    if not len(several):
        return None
    rows = board[board["model_name"].isin(several)]
    fig = plots.plot_means_with_intervals(rows, b.fig_dir, "table_formats.png",
                                          f"Mean F1 and CC per model and table format ({b.mode} scoring, 95% "
                                          f"intervals)", label_columns=("table_format", "inference_mode"))
    df = b.tested("by_table_format")
    table = _ordered(_wide(df[df["model_name"].isin(several)], ["model_name", "inference_mode", "table_format"],
                           extra=("n", "value_minus_html")).rename(columns={"value_minus_html": "f1_minus_html"}),
                     b.order, ["inference_mode", "table_format"])
    return Section("by_table_format", "Which table format works best?", "The same questions shown as HTML, CSV, "
                   "Markdown or an image (the paper's Table V).",
                   [(fig, "Each row is a model on one table format (and inference mode), with its mean and 95% "
                          "interval: compare the rows of one model.")],
                   [Table(table, "f1_minus_html: the F1 difference to the model's HTML result.",
                          _sql("model_name, inference_mode, table_format, metric, value, n, value_minus_html",
                               "analysis_scores_by_table_format", b.where,
                               "model_name, inference_mode, table_format, metric"))])


def _text_vs_image(b: _Builder) -> Section | None:
    df = b.frame("text_vs_image")
    if df.empty and len(b.frame("by_table_format")):
        from .modality import text_vs_image

        df = text_vs_image(b.frame("by_table_format"))
    df = _strict(_under_test(df, b.baselines), b.mode)
    if df.empty:
        return None
    models = set(df["model_name"])
    board = _strict(b.frame("leaderboard"), b.mode)
    fig = plots.plot_means_with_intervals(board[board["model_name"].isin(models)], b.fig_dir, "text_vs_image.png",
                                          f"Text versus image: mean F1 and CC per table format ({b.mode} scoring)",
                                          label_columns=("table_format", "inference_mode"))
    shown = df[df["metric"].isin(SHOWN_METRICS)].drop(columns=["scoring_mode"], errors="ignore")
    figures = [(fig, "Each row is a model on one format, the image among them, with its mean and 95% interval: "
                     "the image row right of the text rows means the picture does better.")]
    tables = [Table(shown.reset_index(drop=True), "image_minus_text > 0 where the picture does better.",
                    _sql("model_name, inference_mode, metric, text_format, text_value, image_value, "
                         "image_minus_text, n_text, n_image", "analysis_text_vs_image", b.where,
                         "model_name, inference_mode, metric, text_format"))]
    by_size = _strict(_under_test(b.frame("text_vs_image_by_size"), b.baselines), b.mode)
    if len(by_size):
        f1 = by_size[by_size["metric"] == "f1"]
        labelled = f1.assign(label=f1["model_name"].astype(str) + " / " + f1["text_format"].astype(str) + " / "
                             + f1["size_bin"].astype(str) + " cells")
        figures.append((plots.plot_bars(labelled.reset_index(drop=True), "label", "image_minus_text", b.fig_dir,
                                        "text_vs_image_by_table_size.png",
                                        "Image minus text F1 by table size (cells)", "image F1 minus text F1"),
                        "One bar per model, text format and table-size bin: the image's F1 minus the text's on the "
                        "same questions; left of 0 the picture does worse on tables of that size."))
        tables.append(Table(f1.drop(columns=["scoring_mode", "build_fingerprint"], errors="ignore")
                            .reset_index(drop=True), "By bins of the tables' cell count, on the questions answered "
                            "in both formats.",
                            _sql("*", "analysis_text_vs_image_by_table_size", b.where,
                                 "model_name, inference_mode, metric, text_format, min_cells"), "By table size"))
    return Section("text_vs_image", "Does a model read a table better as text or as an image?",
                   "Models shown each table both as text and as its PNG (the paper's RQ10).", figures, tables)


def _modes(b: _Builder) -> Section | None:
    df = b.tested("by_mode_family")
    if df.empty or not (df.groupby("model_name")["inference_mode"].nunique() > 1).any():
        return None
    from .mode_plots import plot_mode_family_heatmap

    fig = plot_mode_family_heatmap(_under_test(b.frame("by_mode_family"), b.baselines), b.fig_dir, "f1", b.mode)
    gains = b.tested("mode_gains")
    figures = [(fig, f"Mean F1 of each model / inference mode (rows) on each question family (columns; "
                     f"{b.reading}; pot is scored on its program's executed answer, a failed run 0): compare "
                     f"the rows of one model.")]
    skills = b.tested("by_treb_skill")
    skills = skills[skills["treb_subtask"].isna()] if len(skills) and "treb_subtask" in skills else skills.iloc[:0]
    if len(skills) and (skills.groupby("model_name")["inference_mode"].nunique() > 1).any():
        from .mode_plots import plot_modes_by_skill

        figures.append((plot_modes_by_skill(skills, b.fig_dir, b.mode, b.order),
                        f"TReB's Figure 2 on HCTs: each TReB skill (x) in each inference mode (bars), one panel per "
                        f"model; a skill's score is the mean of its subtasks' means, each subtask by its own metric "
                        f"(exact match for values, ROUGE-L for text), with 95% intervals from resampling tables "
                        f"({b.reading}). TReB finds pot and icot ahead of tcot on the data-analysis skills (DA, "
                        f"ADA)."))
    tables = []
    if len(gains):
        fam = gains[(gains["level"] == "family") & gains["metric"].isin(SHOWN_METRICS)] if "level" in gains else gains
        fam = fam.drop(columns=["scoring_mode", "level", "treb_skill"], errors="ignore")
        fam = fam.assign(family=fam["family"].map(template_label))
        tables.append(Table(_ordered(fam, b.order, ["metric", "family", "inference_mode", "baseline_mode"]),
                            "The code mode's mean minus the text mode's per question family (gain > 0: code helps).",
                            _sql("model_name, family, metric, inference_mode, baseline_mode, value, baseline_value, "
                                 "gain, n, baseline_n", "analysis_mode_gains", b.where + " and level = 'family'",
                                 "model_name, metric, family, inference_mode, baseline_mode")))
        by_skill = gains[gains["level"] == "treb_skill"] if "level" in gains else gains.iloc[:0]
        if len(by_skill):
            shown = by_skill.drop(columns=["scoring_mode", "level", "family", "metric"])
            tables.append(Table(_ordered(shown, b.order, ["treb_skill", "inference_mode", "baseline_mode"]),
                                "The code mode's mean minus the text mode's per TReB skill (TReB's Figure 2: each "
                                "skill the mean of its subtasks' means).",
                                _sql("model_name, treb_skill, inference_mode, baseline_mode, value, baseline_value, "
                                     "gain, n, baseline_n", "analysis_mode_gains",
                                     b.where + " and level = 'treb_skill'",
                                     "model_name, treb_skill, inference_mode, baseline_mode"),
                                "Code-mode gains per TReB skill"))
    return Section("modes", "Does reasoning or code help?", "direct answers, text chain of thought (tcot), a program "
                   "(pot) and interleaved code (icot) on the same questions (TReB's modes).", figures, tables)


def _table_size(b: _Builder) -> Section | None:
    df = b.tested("by_table_size")
    if df.empty:
        return None
    from .mode_plots import plot_mode_by_table_size

    fig = plot_mode_by_table_size(df, b.fig_dir, "f1", b.mode, b.order)
    shown = df[df["metric"] == "f1"][["model_name", "inference_mode", "size_measure", "size_bin", "value", "ci_low",
                                      "ci_high", "n", "n_tables"]]
    shown = _ordered(shown.assign(_low=df.loc[shown.index, "bin_low"]), b.order,
                     ["size_measure", "inference_mode", "_low"]).drop(columns="_low")
    return Section("table_size", "Do the modes lose accuracy as tables grow?",
                   "The same scores split by the table's size: its cells, and the prompt tokens the model was given "
                   "(TReB finds the text modes fall with table size and ICoT, whose prompt shows only the table's "
                   "structure, does not).",
                   [(fig, f"Mean F1 per size bin (x), one line per inference mode, with 95% intervals from resampling "
                          f"tables; left: the table's cells, right: the prompt's tokens as the backend reported them "
                          f"(an icot episode's turns summed; {b.reading}). A flat line is a mode that does not mind "
                          f"the table's size; bins with few tables have wide intervals.")],
                   [Table(shown, "Mean F1 per model, mode and size bin.",
                          _sql("model_name, inference_mode, metric, size_measure, size_bin, value, ci_low, ci_high, "
                               "n, n_tables", "analysis_mode_by_table_size", b.where,
                               "model_name, metric, size_measure, inference_mode, bin_low"))])


def _code_runs(b: _Builder) -> Section | None:
    errors = _under_test(b.frame("execution_errors"), b.baselines)
    if errors.empty:
        return None
    from .mode_plots import plot_execution_outcomes

    fig = plot_execution_outcomes(errors, b.fig_dir)
    tables = [Table(errors.reset_index(drop=True), "pot and icot code blocks by how they ended.",
                    _sql("*", "analysis_execution_errors", NOT_BASELINE, "model_name, inference_mode, outcome"))]
    turns = _under_test(b.frame("episode_turns"), b.baselines)
    if len(turns):
        tables.append(Table(turns.reset_index(drop=True), "icot episodes by the turns they used.",
                            _sql("*", "analysis_episode_turns", NOT_BASELINE, "model_name, turns_used"),
                            "Turns per icot episode"))
    return Section("code_runs", "How do the models' programs end?", "Every code block pot and icot ran, in the sandbox.",
                   [(fig, "Each bar is a model / mode / sandbox, split by how its code runs ended: the share that "
                          "is not 'ok' is what failed programs cost the code modes.")], tables)


def _obfuscation(b: _Builder) -> Section | None:
    gap = b.tested("obfuscation_gap")
    if gap.empty:
        return None
    from .obfuscation_gap import CAPTION, plot_obfuscation_gap

    path = plot_obfuscation_gap(gap, b.fig_dir, "f1", b.mode)
    figs = [(path, CAPTION.format(metric="F1", mode=b.mode))] if path else []
    shown = gap[gap["metric"].isin(SHOWN_METRICS)].drop(columns=["scoring_mode"])
    return Section("obfuscation_gap", "Does a model rely on the table's words?", "The same tables and questions "
                   "with every table word replaced by an invented one (the paper's RQ3).", figs,
                   [Table(shown.reset_index(drop=True), "gap = original - obfuscated, over the pairs scored in both.",
                          _sql("*", "analysis_obfuscation_gap", b.where, "model_name, table_format, metric"))])


def _layout_effect(b: _Builder) -> Section | None:
    effects = _strict(b.frame("layout_effect"), b.mode)
    if _under_test(effects, b.baselines).empty:  # a section is about models under test; the baselines stand beside
        return None
    from .layout_effect import CAPTION, plot_layout_effects

    models = [m for m in b.order if m in set(effects["model_name"])]
    path = plot_layout_effects(effects, b.fig_dir, models, "f1", b.mode)
    f1 = effects[effects["metric"] == "f1"]
    shown = f1.assign(interval=[_interval(lo, hi) for lo, hi in zip(f1["ci_low"], f1["ci_high"])],
                      observational_interval=[_interval(lo, hi) for lo, hi in zip(
                          f1["observational_difference_ci_low"], f1["observational_difference_ci_high"])])
    columns = ["model_name", "table_format", "inference_mode", "property", "n_pairs", "n_sets", "effect", "interval",
               "p_value", "observational_difference", "observational_interval", "observational_coef"]
    sql = _sql("model_name, table_format, inference_mode, property, metric, n_pairs, n_sets, mean_without, mean_with, "
               "effect, ci_low, ci_high, p_value, observational_difference, observational_coef",
               "analysis_layout_effect", f"scoring_mode = '{b.mode}'", "model_name, table_format, property, metric")
    under, base = _under_test(shown, b.baselines), shown[shown["model_name"].isin(b.baselines)]
    tables = [Table(_ordered(under[columns], b.order, ["table_format", "inference_mode", "property"]),
                    "Models under test, F1: the causal effect of each property (the mean paired difference, with "
                    "minus without, over the pairs of questions on a set's layouts; its 95% interval resampling sets "
                    "and its p value) beside the observational difference over the original tables and the "
                    "regression coefficient; every metric is in the query's rows.",
                    sql.replace("where ", f"where {NOT_BASELINE} and ", 1))]
    if len(base):
        tables.append(Table(base[columns].reset_index(drop=True), "The baselines: the oracle's effects are 0 (the "
                            "answers are the layouts' common ground truth); header_match reads the header paths, "
                            "which some layouts change.", sql.replace("where ", "where model_name in ('oracle', "
                                                                      "'header_match') and ", 1), "Baselines"))
    return Section("layout_effect", "Does a layout property cause the errors?",
                   "The same tables laid out again with one property changed at a time (the layout counterfactual "
                   "sets) give each property's causal effect, which the property regression's observational "
                   "estimates cannot separate from the content the property comes with.",
                   [(path, CAPTION.format(fmt="html", mode=b.mode, metric="F1"))] if path else [], tables)


def _paraphrases(b: _Builder) -> Section | None:
    consistency = _strict(b.frame("paraphrase_consistency"), b.mode)
    if _under_test(consistency, b.baselines).empty:
        return None
    from .paraphrase_consistency import CAPTION, plot_paraphrase_consistency

    path = plot_paraphrase_consistency(consistency, b.fig_dir, "f1", b.mode, sorted(b.baselines))
    f1 = consistency[consistency["metric"] == "f1"]
    shown = f1.assign(identical_interval=[_interval(lo, hi) for lo, hi in zip(f1["share_identical_ci_low"],
                                                                               f1["share_identical_ci_high"])])
    columns = ["model_name", "table_format", "inference_mode", "n_sets", "phrasings_per_set", "share_identical",
               "identical_interval", "mean_value", "share_same_score", "mean_range", "mean_sd"]
    sql = _sql("model_name, table_format, inference_mode, metric, n_sets, share_identical, share_identical_ci_low, "
               "share_identical_ci_high, mean_value, share_same_score, mean_range, mean_range_ci_low, "
               "mean_range_ci_high, mean_sd", "analysis_paraphrase_consistency", b.where,
               "model_name, table_format, inference_mode, metric")
    return Section("paraphrase_consistency", "Does the wording change the answer?",
                   "Every question asked in each phrasing of its template (the paraphrase sets): the same table, "
                   "SQL and answer, other words.",
                   [(path, CAPTION.format(mode=b.mode, metric="F1"))] if path else [],
                   [Table(_ordered(_under_test(shown, b.baselines)[columns], b.order, columns[1:3]),
                          "Models under test: over the sets answered in every phrasing, the share answered "
                          "identically (with its 95% interval), and F1's mean, the share of sets scored the same in "
                          "every phrasing, and its mean range and standard deviation across phrasings.", sql)])


def _seed_variance(b: _Builder) -> Section | None:
    variance = _strict(b.frame("seed_variance"), b.mode)
    if variance.empty:
        return None
    from .seed_variance import CAPTION, plot_seed_variance, seeds_for_difference

    path = plot_seed_variance(variance, b.fig_dir, "f1", b.mode, sorted(b.baselines))
    f1 = variance[variance["metric"] == "f1"]
    columns = ["model_name", "table_format", "inference_mode", "n_seeds", "mean", "sd_between_seeds", "min", "max",
               "within_build_half_width", "within_build_se", "sd_to_within_se", "detectable_difference"]
    sizes = (0.01, 0.02, 0.05)
    needed = f1[columns[:3]].assign(sd_between_seeds=f1["sd_between_seeds"], **{
        f"seeds for a difference of {d:g}": [seeds_for_difference(sd, d) if np.isfinite(sd) and sd > 0 else 2
                                             for sd in f1["sd_between_seeds"]] for d in sizes})
    sql = _sql("model_name, table_format, inference_mode, metric, seeds, mean, sd_between_seeds, min, max, "
               "within_build_half_width, sd_to_within_se, detectable_difference", "analysis_seed_variance",
               f"scoring_mode = '{b.mode}'", "model_name, table_format, inference_mode, metric")
    n_seeds = int(variance["n_seeds"].max())
    return Section("seed_variance", "How much of a score is the benchmark's own sampling?",
                   "The benchmark regenerates from its seed: builds of other seeds draw other tables and questions of "
                   "the same configuration, and the spread of a model's score across them is the benchmark's own "
                   "sampling noise, beside the interval one build gives.",
                   [(path, CAPTION.format(mode=b.mode, metric="F1", n=n_seeds))] if path else [],
                   [Table(_ordered(f1[columns], b.order, columns[1:3]), "F1 per model over the seeds: the spread "
                          "between seeds (standard deviation, range), one build's interval (half-width, and the "
                          "standard error it implies), their ratio, and the smallest difference between two models "
                          "these seeds tell apart (5% two-sided, 80% power).", sql),
                    Table(_ordered(needed, b.order, columns[1:3]), "Seeds each of two models needs for their mean "
                          "F1 over the seeds to tell a difference of this size apart (5% two-sided, 80% power: "
                          "15.7 x sd^2 / d^2, at least 2), from the spread between the seeds built.", None,
                          "Seeds a difference needs")])


def _finetune_gain(b: _Builder) -> Section | None:
    gain = _strict(b.frame("finetune_gain"), b.mode)
    if gain.empty:
        return None
    from .finetune_gain import BASE_SET, CAPTION, table_vi

    f1 = gain[(gain["metric"] == "f1") & (gain["finetune_set"] != BASE_SET)]
    labelled = f1.assign(label=f1["model_name"].astype(str) + " (" + f1["finetune_set"].astype(str) + ") on "
                         + f1["test_set"].astype(str) + ", " + f1["table_format"].astype(str))
    fig = plots.plot_bars(labelled.reset_index(drop=True), "label", "gain", b.fig_dir, "finetune_gain.png",
                          "F1 of each fine-tuned model minus its base's, per test set", "F1 gain over the base")
    return Section("finetune_gain", "Does fine-tuning help?", "Each fine-tuned model (`base_model`, `finetune_set`) "
                   "against its base on the same questions of each test set (the paper's RQ4).",
                   [(fig, "One bar per fine-tuned model, test set and format: its F1 minus its base's; right of 0 "
                          "fine-tuning helped.")],
                   [Table(table_vi(gain), CAPTION.format(metric="F1", mode=b.mode),
                          _sql("*", "analysis_finetune_gain", f"scoring_mode = '{b.mode}'",
                               "base_model, table_format, inference_mode, metric, test_set"), "Table VI layout")])


def _unsaid(df: pd.DataFrame, column: str, key: str) -> str:
    """The models the entries gave no `key` for, as a sentence ('' when none)."""
    names = sorted({n.strip() for v in df[column].dropna() for n in str(v).split(",") if n.strip()})
    return f" No `{key}` given for: {', '.join(names)} (left out, not guessed)." if names else ""


def _model_size(b: _Builder) -> Section | None:
    size = _strict(b.frame("by_model_size"), b.mode)
    if size.empty:
        return None
    f1 = size[size["metric"] == "f1"]
    shown = f1.assign(label=f1["family"].astype(str) + " / " + f1["inference_mode"].astype(str),
                      points_per_b=f1["slope_per_b"] * 100)
    fig = plots.plot_bars(shown.reset_index(drop=True), "label", "points_per_b", b.fig_dir, "scores_by_model_size.png",
                          "F1 per billion parameters within each model family", "percentage points of F1 per 1B")
    return Section("model_size", "How do size and score go together?", "Per family (entry key `family`), the slope "
                   "of each model's F1 on its size (`params_b`), each on its primary format (the paper's RQ7)."
                   + _unsaid(size, "models_without_size", "params_b"),
                   [(fig, "One bar per family and mode: the least-squares slope of F1 on billions of parameters, in "
                          "percentage points per 1B; not defined with fewer than two sizes.")],
                   [Table(f1.drop(columns=["scoring_mode", "build_fingerprint"], errors="ignore").reset_index(drop=True),
                          "slope_per_b in F1 per billion parameters (x 100: percentage points), 95 % interval with "
                          "n_models - 2 degrees of freedom.",
                          _sql("*", "analysis_scores_by_model_size", f"scoring_mode = '{b.mode}'", "family, metric"))])


def _over_time(b: _Builder) -> Section | None:
    time = _strict(b.frame("over_time"), b.mode)
    if time.empty:
        return None
    f1 = time[(time["metric"] == "f1") & time["previous_model"].notna()]
    shown = f1.assign(label=f1["family"].astype(str) + ": " + f1["previous_model"].astype(str) + " -> "
                      + f1["model_name"].astype(str))
    fig = plots.plot_bars(shown.reset_index(drop=True), "label", "change", b.fig_dir, "scores_over_time.png",
                          "F1 change from one release of a family to the next", "F1 change")
    return Section("over_time", "Do newer releases do better?", "Per family, each model against the family's "
                   "previous release (entry key `release_date`; the paper's RQ2)."
                   + _unsaid(time, "models_without_date", "release_date"),
                   [(fig, "One bar per pair of successive releases: the newer one's F1 minus the older one's; right "
                          "of 0 the newer release does better.")],
                   [Table(time[time["metric"] == "f1"].drop(columns=["scoring_mode", "build_fingerprint"],
                                                            errors="ignore").reset_index(drop=True),
                          "Each release with its mean, the previous release's and the change.",
                          _sql("*", "analysis_scores_over_time", f"scoring_mode = '{b.mode}'",
                               "family, metric, release_date"))])


def _shots(b: _Builder) -> Section | None:
    by_shots = _strict(b.frame("by_shots"), b.mode)
    if by_shots.empty:
        return None
    from .shots import shots_table

    recall = by_shots[by_shots["metric"] == "recall"]
    labelled = recall.assign(label=recall["model_name"].astype(str) + " (" + recall["shots"].astype(str) + "-shot, "
                             + recall["table_format"].astype(str) + ")")
    fig = plots.plot_bars(labelled.reset_index(drop=True), "label", "value", b.fig_dir, "scores_by_shots.png",
                          f"Recall with 0 and 1 worked examples ({b.mode} scoring)", "recall", (0.0, 1.0))
    return Section("shots", "Does a worked example help?", "Entries with `shots: 1` see another table's question "
                   "of the same template, with its answer, before each question (the paper's Table VIII).",
                   [(fig, "One bar per entry and format: its recall; compare an entry with its model's 0-shot one.")],
                   [Table(shots_table(by_shots), "Recall per model id at 0 and 1 shots (the entries named).",
                          _sql("*", "analysis_scores_by_shots", f"scoring_mode = '{b.mode}' and metric = 'recall'",
                               "model, table_format, shots"), "Table VIII layout")])


def _judge(b: _Builder) -> Section | None:
    agreement = _under_test(b.frame("judge_agreement"), b.baselines)
    if agreement.empty:
        return None
    labelled = agreement.assign(label=agreement["judge_name"].astype(str) + " on " + agreement["model_name"].astype(str)
                                + " / " + agreement["inference_mode"].astype(str))
    fig = plots.plot_bars(labelled, "label", "cohen_kappa", b.fig_dir, "judge_agreement.png",
                          "LLM judge against complete containment: Cohen's kappa", "Cohen's kappa", (-1.0, 1.0))
    return Section("judge_agreement", "Does the LLM judge agree with complete containment?",
                   "The judge's verdicts against strict complete containment on the same predictions.",
                   [(fig, "One bar per judge and model / mode: Cohen's kappa of the judge's correct / incorrect against "
                          "CC's, 1 perfect agreement, 0 no better than chance.")],
                   [Table(agreement.reset_index(drop=True), "Confusion counts over the predictions with a verdict.",
                          _sql("*", "analysis_judge_agreement", NOT_BASELINE, "judge_name, model_name, inference_mode"))])


def subtask_label(skill, subtask, metric) -> str:
    return f"{skill}: {str(subtask).replace('_', ' ')} ({metric})"


def _treb_skills(b: _Builder) -> Section | None:
    df = _strict(b.frame("by_treb_skill"), b.mode)
    if _under_test(df, b.baselines).empty:  # a section is about models under test; the baselines stand beside
        return None
    skill_rows = df["treb_subtask"].isna()
    subtasks = df[~skill_rows]
    labelled = subtasks.assign(subtask=[subtask_label(*k) for k in zip(subtasks["treb_skill"], subtasks["treb_subtask"],
                                                                       subtasks["metric"])], metric="score")
    figures = []
    if skill_rows.any():
        skills = df[skill_rows].assign(metric="score")
        figures.append((plots.plot_means_with_intervals(
            skills, b.fig_dir, "treb_skill_means.png", f"Each TReB skill: the mean of its subtasks' means ({b.mode} "
            f"scoring, 95% table-resampling bootstrap intervals)", metrics=("score",),
            label_columns=("inference_mode", "treb_skill"), baselines=sorted(b.baselines)),
            "Each row is a model / inference mode on one of TReB's six skills: the mean of the skill's subtasks' "
            "means, each subtask by its own metric and weighted alike (TReB averages a skill over its subtasks), "
            "with its 95% interval from resampling tables; baselines grey, best first."))
    fig = plots.plot_means_with_intervals(
        labelled, b.fig_dir, "treb_skills.png", f"Each TReB subtask by its own metric ({b.mode} scoring, 95% "
        f"table-resampling bootstrap intervals)", metrics=("score",), label_columns=("inference_mode", "subtask"),
        baselines=sorted(b.baselines))
    figures.append((fig, "Each row is a model / inference mode on one subtask (skill: subtask (metric)); the point "
                         "is its mean and the bar its 95% interval from resampling tables; baselines grey, best "
                         "first."))
    keys = ["model_name", "inference_mode", "treb_skill", "treb_subtask", "metric"]
    shown = df.assign(interval=[_interval(lo, hi) for lo, hi in zip(df["ci_low"], df["ci_high"])],
                      treb_subtask=df["treb_subtask"].astype(object).where(~skill_rows, "(skill: mean of subtasks)"))[
        [*keys, "mean", "interval", "n_questions", "n_tables"]]
    sql = _sql("model_name, inference_mode, treb_skill, treb_subtask, metric, mean, ci_low, ci_high, n_questions, "
               "n_tables, n_left_out", "analysis_scores_by_treb_skill", f"scoring_mode = '{b.mode}'",
               "model_name, inference_mode, treb_skill, treb_subtask")
    under, base = _under_test(shown, b.baselines), shown[shown["model_name"].isin(b.baselines)]
    tables = []
    if len(under):
        tables.append(Table(_ordered(under, b.order, keys[1:]), "Models under test: per skill and subtask the mean "
                            "of the subtask's own metric, its 95% interval (tables drawn with replacement) and the "
                            "questions and tables it is over.", sql.replace("where ", f"where {NOT_BASELINE} and ", 1)))
    if len(base):
        tables.append(Table(base.reset_index(drop=True), "The baselines: the oracle scores 1 on every subtask (the "
                            "ground truth and each metric agree); header_match answers with the cells the question's "
                            "header paths name.", sql.replace("where ", "where model_name in ('oracle', "
                                                              "'header_match') and ", 1), "Baselines by subtask"))
    consistency = b.frame("robustness_consistency")
    if len(consistency):
        shown_c = consistency.assign(interval=[_interval(lo, hi) for lo, hi in zip(consistency["ci_low"],
                                                                                  consistency["ci_high"])])
        tables.append(Table(
            shown_c[["model_name", "inference_mode", "table_format", "view", "consistency", "interval",
                     "accuracy_original", "accuracy_view", "n_groups"]].reset_index(drop=True),
            "Robustness beside its accuracy: per perturbed view, the share of questions a model answered alike on "
            "the table and on the view (strict reading), its 95% interval, and exact match on both.",
            _sql("*", "analysis_robustness_consistency", None, "model_name, inference_mode, table_format, view"),
            "Consistency across perturbed views"))
    return Section("treb_skills", "Which TReB skills and subtasks are hard?",
                   "Every question family declares the TReB skill and subtask it measures and the metric that "
                   "subtask is scored by (exact match for values, ROUGE-L for text, the refusal for unanswerable "
                   "questions, the rule for output instructions): TReB's per-skill and per-subtask tables, on "
                   "human-centric tables. The table summary's reference is one good summary written by rule, not "
                   "the only one.", figures, tables)


CHOICE_SQL = {
    "choice accuracy by subset": None,
    "choice accuracy by strategy and variant": ("analysis_choice_accuracy", "model_name, scoring, subset"),
    "choice robustness gap": ("analysis_choice_robustness_gap", "model_name, scoring"),
    "choice probe accuracy by target position": ("analysis_choice_probe_positions",
                                                 "model_name, scoring, subset, target_row, target_col"),
    "choice regression on table properties (estimated)": ("analysis_choice_property_regression",
                                                          "model_name, scoring, property"),
}


def _choice(b: _Builder) -> Section | None:
    from evaluation_py.choice.figures import FRAME_KEYS, choice_figures, choice_tables

    frames = {k: _under_test(b.frame(k), b.baselines) for k in FRAME_KEYS}
    if frames["choice_accuracy"].empty:
        return None
    tables = []
    for name, (df, caption) in choice_tables(frames).items():
        if df.empty:
            continue
        mart = CHOICE_SQL.get(name)
        sql = _sql("*", mart[0], NOT_BASELINE, mart[1]) if mart else None
        tables.append(Table(df.reset_index(drop=True), caption, sql, name[0].upper() + name[1:]))
    return Section("choice", "Do the models pass TabIS's two-option items?", "Each item asked in both option orders; "
                   "right in both is the score.", choice_figures(frames, b.fig_dir), tables)


COMPOSITION_CAPTIONS = {
    "domain": "Tables and questions per domain (dataset) of the benchmark: the bar lengths are the counts.",
    "template": "Tables and questions per SQL question template (synthetic questions): the bar lengths are the counts.",
    "property": "Tables having each of the 23 table properties, and their questions; a table counts under every "
                "property it has, so the bars overlap.",
    "property_combination": "Tables and questions per combination of main table properties (the paper's Figure 3a): "
                            "each column is one combination, its black dots the properties its tables have, most "
                            "frequent first.",
    "question_property": "Questions having each question property (and the tables they are on); a question counts "
                         "under every property it has.",
}


def _composition(b: _Builder) -> Section | None:
    comp = b.frame("composition")
    if comp.empty:
        return None
    facets = list(pd.unique(comp["facet"]))
    # one chart per facet, each drawn in a child process of its own: the report is the build's last model, so
    # the other core is free for them
    paths = map_in_child_processes(_composition_chart, [(comp[comp["facet"] == f], b.fig_dir, f) for f in facets])
    figs = [(path, COMPOSITION_CAPTIONS.get(facet, f"Tables and questions per {facet.replace('_', ' ')}: the bar "
                                                   f"lengths are the counts."))
            for path, facet in zip(paths, facets)]
    return Section("composition", "What does the benchmark hold?", "Counts of tables and questions.", figs,
                   [Table(_readable_composition(comp).drop(columns=["build_fingerprint"], errors="ignore"),
                          "Tables and questions per facet; a property combination lists the main properties its "
                          "tables have.",
                          _sql("facet, key, n_tables, n_questions", "analysis_benchmark_composition", None,
                               "facet, n_tables desc"))])


def _composition_chart(job: tuple) -> str:
    """The chart of one facet's rows (`job`: rows, figure folder, facet), templates by their labels."""
    rows, fig_dir, facet = job
    if facet == "template":
        rows = rows.assign(key=[template_label(k) for k in rows["key"]])
    return plots.plot_composition(rows, fig_dir, facet)


def _diversity(b: _Builder) -> Section | None:
    div = b.frame("question_diversity")
    if div.empty:
        return None
    shown = div[div["level"] != "template"]
    labels = shown.apply(lambda r: "all questions" if r["level"] == "all" else str(r["source"]), axis=1)
    fig = plots.plot_bars(shown.assign(label=labels.to_numpy()).reset_index(drop=True), "label",
                          "syntactic_similarity", b.fig_dir, "question_diversity.png",
                          "Question syntactic similarity (lower: more diverse)", "mean pairwise word Jaccard",
                          (0.0, 1.0))
    columns = ["level", "source", "template_id", "n_tables", "n_questions", "questions_per_table",
               "syntactic_similarity"]
    return Section("question_diversity", "How varied are the questions?",
                   "The paper's Table I: questions per table and how alike a table's questions are worded.",
                   [(fig, "One bar per source: the mean over tables of the mean pairwise word-level Jaccard "
                          "similarity of their questions.")],
                   [Table(div[columns], "Per source and per source x template; a template's similarity is over "
                                        "the pairs holding its question.",
                          _sql(", ".join(columns), "analysis_question_diversity", None,
                               "level, source, template_id"))])


def _readable_composition(comp: pd.DataFrame) -> pd.DataFrame:
    named = comp["facet"].isin(["property", "question_property", "property_combination"])
    keys = [" + ".join(property_label(p) for p in str(k).split(" + ")) if n and not str(k).startswith("(")
            else template_label(k) if f == "template" else k
            for k, n, f in zip(comp["key"], named, comp["facet"])]
    return comp.assign(key=keys)


NO_MODEL = "an eval_models entry (a model under test; the baselines enter no breakdown)"
# (builder, title when it cannot be answered, what would answer it): the report's order
SECTIONS: tuple[tuple[Callable, str, str], ...] = (
    (_leaderboard, "Leaderboard", "evaluate a model: an eval_models entry, or the default baselines"),
    (_templates, "Which question templates are hard?", NO_MODEL + " answering synthetic questions"),
    (_question_properties, "Which kinds of question are hard?", NO_MODEL + " answering synthetic questions"),
    (_aggregation, "Which aggregate functions are hard?", NO_MODEL + " answering synthetic questions"),
    (lambda b: _regression(b, "table"), "Which table properties make questions harder?", NO_MODEL),
    (lambda b: _regression(b, "question"), "Which question properties make questions harder?", NO_MODEL),
    (_verbosity, "Do longer answers buy recall?", NO_MODEL),
    (_sources, "Do real and synthetic questions differ?", NO_MODEL),
    (_creation_type, "Do hand-written and model-written questions differ?", NO_MODEL),
    (_formats, "Which table format works best?", "several formats in one entry: `formats: [html, csv, markdown]`"),
    (_text_vs_image, "Text versus image", "add `formats: [image]` beside a text format to an entry whose backend "
                                          "sends images"),
    (_tables_read, "Can the models combine two tables?", "a model under test answering questions over two tables "
                                                         "(var question_suites holding beyond)"),
    (_olap, "Can the models answer at levels the table does not show?", "a model under test answering OLAP "
                                                                        "questions (var question_suites holding "
                                                                        "beyond)"),
    (_treb_skills, "Which TReB skills and subtasks are hard?", "a model under test scored on questions with a TReB "
                                                               "subtask (benchmark_questions.treb_subtask)"),
    (_modes, "Does reasoning or code help?", "several inference modes in one entry: `modes: [direct, tcot, pot, icot]`"),
    (_table_size, "Do the modes lose accuracy as tables grow?", NO_MODEL),
    (_code_runs, "How do the models' programs end?", "a code mode in an entry: `modes: [pot]` or `modes: [icot]`"),
    (_obfuscation, "Does a model rely on the table's words?", "`variants: [original, obfuscated]` in an entry"),
    (_layout_effect, "Does a layout property cause the errors?", "layout counterfactual sets (var "
                                                                 "layout_counterfactuals: 20) and `variants: [original, "
                                                                 "counterfactual]` in an entry of a model under test"),
    (_paraphrases, "Does the wording change the answer?", "paraphrase sets (var paraphrase_sets: true) and "
                                                          "`variants: [original, paraphrase]` in an entry of a model "
                                                          "under test"),
    (_seed_variance, "How much of a score is the benchmark's own sampling?", "builds of several seeds (`hctqa seeds "
                                                                             "1 2 3`) and var seed_variance_seeds: "
                                                                             "[1, 2, 3] in this build"),
    (_model_size, "How do size and score go together?", "entries naming their model's `family` and size "
                                                         "`params_b` (two sizes or more in a family)"),
    (_over_time, "Do newer releases do better?", "entries naming their model's `family` and `release_date` (two "
                                                 "releases or more in a family)"),
    (_shots, "Does a worked example help?", "an entry with `shots: 1` beside the same model's 0-shot entry"),
    (_finetune_gain, "Does fine-tuning help?", "an entry of a fine-tuned model naming `base_model` and "
                                               "`finetune_set`, beside its base's entry"),
    (_judge, "Does the LLM judge agree with complete containment?", "set var judge_model to an entry"),
    (_choice, "Do the models pass TabIS's two-option items?", "`choice_items: {sample: 100}` in an entry"),
    (_composition, "What does the benchmark hold?", "a benchmark (no tables were built)"),
    (_diversity, "How varied are the questions?", "a benchmark with HCT-QA questions"),
)


def report_sections(frames: Mapping[str, pd.DataFrame], scores: pd.DataFrame, fig_dir,
                    scoring_mode: str = "strict") -> tuple[list[Section], list[Unanswered]]:
    """The sections the frames can fill, in the report's order (their figures written under ``fig_dir``), and
    the questions they cannot, with what would fill them. ``frames``: the analysis tables by key (``leaderboard``
    computed from ``scores`` when absent)."""
    frames = dict(frames)
    if "leaderboard" not in frames:
        frames["leaderboard"] = leaderboard(scores)
    b = _Builder(frames, scores, fig_dir, scoring_mode)
    for build, title, remedy in SECTIONS:
        b.add(build(b), title, remedy)
    return b.sections, b.unanswered


def build_report(out_dir, scores: pd.DataFrame, frames: Mapping[str, pd.DataFrame], build_info: Mapping) -> pd.DataFrame:
    """Write the figures and index.html under ``out_dir``; one row per file written (path, kind, bytes)."""
    out = Path(str(out_dir or "reports"))
    sections, unanswered = report_sections(frames, scores, out / "figures")
    info = {"build_date": datetime.date.today().isoformat(),
            **{k: ("not set (default)" if v is None else v) for k, v in build_info.items()}}
    index = write_report(out, sections, info, models=models_evaluated(scores), unanswered=unanswered)
    files = [Path(f) for s in sections for f, _ in s.figures] + [Path(index)]
    return pd.DataFrame({"path": [str(f) for f in files],
                         "kind": ["figure" if f.suffix == ".png" else "report" for f in files],
                         "bytes": [f.stat().st_size if f.exists() else 0 for f in files]})
