"""The figures and reports/index.html of a build, from the analysis tables the dbt models made.

:func:`write_figures` is the one list of figures (with the caption saying what each shows),
used by the dbt report and by :func:`pipeline.run_analysis`.
"""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Mapping

import pandas as pd

from evaluation_py import metrics as metric_registry

from . import plots
from .report import write_report
from .schema import POOLED, property_label
from .selection import is_oracle, left_out_mask, model_order, primary_formats

ORACLE_NOTE = "The oracle answers with the ground truth (a check of the chain) and is in no fit."


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
    prim = primary_formats(scores)
    out["primary_format"] = out["model_name"].map(prim)
    out["role"] = ["oracle: check of the chain, in no fit" if o else "model under test" for o in is_oracle(out)]
    return out[[c for c in cols if c in out.columns]]


def _fits_note(regression: pd.DataFrame, kind: str) -> str:
    models = sorted(set(regression.loc[regression["property_kind"] == kind, "model_name"]) - {POOLED})
    if not models:
        return "No model under test, so no fit. " + ORACLE_NOTE
    pooled = (regression["model_name"] == POOLED).any()
    head = ("First panel: pooled over the models under test, with a fixed effect per model condition; then one "
            "panel per model. " if pooled else
            f"One panel per model under test (no pooled fit: a pooled fit needs two models, this build has "
            f"{len(models)}). ")
    return head + ORACLE_NOTE


def write_figures(frames: Mapping[str, pd.DataFrame], scores: pd.DataFrame, fig_dir,
                  scoring_mode: str = "strict") -> list[tuple[str, str]]:
    """Every figure of the report as (path, caption). ``frames``: by_template,
    by_question_property, by_aggregation_type, verbosity, regression (both kinds,
    ``property_kind`` column) and composition."""
    mode = scoring_mode
    order = model_order(scores, scoring_mode=mode) if len(scores) else []
    under_test = [m for m in order if m not in set(scores.loc[is_oracle(scores), "model_name"])]
    regression = frames["regression"]
    fits = [POOLED, *under_test]
    table_fit = regression[regression["property_kind"] == "table"]
    question_fit = regression[regression["property_kind"] == "question"]
    where = (f"{mode} scoring, each model on its primary table format; models in decreasing mean F1")
    figs = [
        (plots.plot_template_heatmap(frames["by_template"], fig_dir, "f1", mode, order),
         f"Mean F1 of each model on the synthetic questions of each of the 15 SQL question templates "
         f"(the paper's Figure 39; {where})."),
        (plots.plot_question_property_heatmap(frames["by_question_property"], fig_dir, "f1", mode, order),
         f"Mean F1 of each model over the questions having each question property; a question counts under "
         f"every property it has (the paper's Figure 9a; {where})."),
        (plots.plot_aggregation_type_heatmap(frames["by_aggregation_type"], fig_dir, "f1", mode, order),
         f"Mean F1 of each model over the aggregation questions, by aggregate function (the paper's "
         f"Figure 9b; {where})."),
        (plots.plot_coefficients_by_model(table_fit, fig_dir, fits, "f1", filename="coefficients_table_f1.png",
                                          title="Effect of table properties on F1 (OLS, 95% CI clustered by table)"),
         "Estimated change in a question's F1 when its table has each property, against a standard relational "
         "table, with 95% confidence intervals clustered by table; filled points are significant after "
         "Benjamini-Hochberg adjustment. Properties a fit cannot estimate are blank (their reason is in the "
         "regression tables). " + _fits_note(regression, "table")),
        (plots.plot_coefficients_by_model(table_fit, fig_dir, fits, "cc", filename="coefficients_table_cc.png",
                                          title="Effect of table properties on complete containment "
                                                "(linear probability model, 95% CI clustered by table)"),
         "As above for complete containment (CC): the change in the probability that an answer holds every "
         "ground-truth value. " + _fits_note(regression, "table")),
        (plots.plot_coefficients_by_model(question_fit, fig_dir, fits, "f1",
                                          filename="coefficients_question_f1.png",
                                          title="Effect of question properties on F1 (OLS, 95% CI clustered by table)"),
         "Estimated change in a question's F1 with each question property (numeric ones per unit, answer size "
         "per doubling), 95% confidence intervals clustered by table. " + _fits_note(regression, "question")),
        (plots.plot_verbosity_recall(frames["verbosity"], fig_dir, mode, order),
         f"Mean number of distinct values in each model's answers against its mean recall (the paper's "
         f"Figure 38; {mode} scoring); dashed: the number of distinct values the ground truth holds, averaged "
         f"over the models' questions. "
         f"Both counts read values alike, so the oracle gives exactly as many values as expected."),
    ]
    captions = {
        "domain": "Tables and questions per domain (dataset) of the benchmark.",
        "template": "Tables and questions per SQL question template (synthetic questions).",
        "property": "Tables having each of the 23 table properties, and their questions; a table counts under "
                    "every property it has.",
        "property_combination": "Tables and questions per combination of main table properties (the paper's "
                                "Figure 3a): each column is one combination, its dots the properties its "
                                "tables have, most frequent first.",
        "question_property": "Questions having each question property (and the tables they are on).",
    }
    # The inference modes (evaluation_py.analysis.mode_plots): scores by mode and family, code run outcomes.
    from .mode_plots import mode_figures

    figs.extend(mode_figures(frames, fig_dir, mode))
    # obfuscation: shown when a model answered both variants
    gap = frames.get("obfuscation_gap")
    if gap is not None and len(gap):
        from .obfuscation_gap import CAPTION, plot_obfuscation_gap

        path = plot_obfuscation_gap(gap, fig_dir, "f1", mode)
        if path:
            figs.append((path, CAPTION.format(metric="F1", mode=mode)))
    comp = frames["composition"]
    for facet in pd.unique(comp["facet"]):
        figs.append((plots.plot_composition(comp, fig_dir, facet),
                     captions.get(facet, f"Benchmark composition: {facet.replace('_', ' ')}.")))
    # Choice items: present when the frames hold the analysis_choice_* tables.
    from evaluation_py.choice.figures import choice_figures
    figs += choice_figures(frames, fig_dir)
    return figs


def metrics_as_columns(df: pd.DataFrame) -> pd.DataFrame:
    """A long breakdown shown wide: one column per metric (``value_minus_html`` as METRIC_minus_html),
    the other columns as they are; a frame without ``metric`` as it is."""
    if "metric" not in df.columns or "value" not in df.columns or df.empty:
        return df
    per_metric = [c for c in ("value", "value_minus_html") if c in df.columns]
    keys = [c for c in df.columns if c not in ("metric", *per_metric)]
    # NULL keys (e.g. the backend of an old frame) would vanish from the index: shown empty instead
    index = df[keys].astype(object).where(df[keys].notna(), "")
    present = set(df["metric"])
    metric_order = [m for m in metric_registry.names() if m in present] + sorted(present - set(metric_registry.names()))
    wide = pd.concat([index, df[["metric", *per_metric]]], axis=1).set_index([*keys, "metric"]).unstack("metric")
    wide.columns = [m if c == "value" else c.replace("value", m) for c, m in wide.columns]
    ordered = [m if c == "value" else c.replace("value", m) for c in per_metric for m in metric_order]
    return wide.reset_index()[[*keys, *ordered]]


def _readable(df: pd.DataFrame, column: str = "property") -> pd.DataFrame:
    return df.assign(**{column: df[column].map(property_label)}) if column in df.columns else df


def _readable_composition(comp: pd.DataFrame) -> pd.DataFrame:
    named = comp["facet"].isin(["property", "question_property", "property_combination"])
    keys = [" + ".join(property_label(p) for p in str(k).split(" + ")) if n and not str(k).startswith("(") else k
            for k, n in zip(comp["key"], named)]
    return comp.assign(key=keys)


def _text_vs_image(by_table_format: pd.DataFrame) -> pd.DataFrame:
    from .modality import text_vs_image

    return text_vs_image(by_table_format)


def report_tables(frames: Mapping[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, str]]:
    """The tables of the report, each with a caption; property names readable."""
    overall = frames["overall"]
    if "level" in overall.columns:  # eval_summary: every level; the report shows the overall one
        overall = overall[overall["level"] == "overall"].drop(
            columns=[c for c in ("level", "source", "dataset", "template_id") if c in overall.columns])
    counts = ("n: predictions scored (the means are over them); n_left_out: predictions paper mode left out. "
              "One column per registered metric.")
    wide = metrics_as_columns
    shown: dict[str, tuple[pd.DataFrame, str]] = {
        "overall scores": (wide(overall), "Mean scores per model, table format, inference mode and scoring mode "
                                          "over all questions. " + counts),
        "scores by table format": (wide(frames["by_table_format"]), "Per model and table format (the paper's "
                                   "Table V); METRIC_minus_html: the metric's difference to the model's HTML "
                                   "result. " + counts),
        "text versus image": (_text_vs_image(frames["by_table_format"]), "Per model shown the table both as "
                              "text and as its PNG (the paper's RQ10): image_minus_text > 0 where the picture "
                              "does better; empty unless a model was evaluated with formats [image] and a text "
                              "format."),
        "scores by source and dataset": (wide(frames["by_source_dataset"]), "Each model on its primary table "
                                         "format. " + counts),
        "answer verbosity": (wide(frames["verbosity"]), "Mean distinct values given and expected per model; "
                             "verbosity_ratio = given / expected (exactly 1 for the oracle). " + counts),
        "scores by template": (wide(frames["by_template"]), "Synthetic questions per SQL template. " + counts),
        "scores by question property": (wide(_readable(frames["by_question_property"])), counts),
        "scores by aggregation type": (wide(frames["by_aggregation_type"]), counts),
        **_mode_tables(frames),
        "benchmark composition": (_readable_composition(frames["composition"]),
                                  "Counts of tables and questions per facet; a property combination lists the "
                                  "main properties its tables have."),
    }
    gap = frames.get("obfuscation_gap")  # only when a model answered both variants
    if gap is not None and len(gap):
        shown["obfuscation gap"] = (gap.drop(columns=[c for c in ("build_fingerprint",) if c in gap.columns]),
                                    "Mean of each metric over the question pairs scored in both variants, on "
                                    "the originals and on their text-obfuscated twins; gap = original - "
                                    "obfuscated (the paper's RQ3 reports about 5 F1 points on average).")
    if "judge_agreement" in frames:  # the LLM judge against cc (evaluation_py.analysis.judge_agreement)
        shown["judge agreement"] = (frames["judge_agreement"].drop(columns=["build_fingerprint"], errors="ignore"),
                                    "The LLM judge's correct / incorrect against strict complete containment (cc) "
                                    "per evaluated model and inference mode: confusion counts over the predictions "
                                    "with a verdict, and Cohen's kappa. Empty without var judge_model.")
    regression = frames["regression"]
    cols = ["model_name", "metric", "model_type", "property", "coef", "std_err_clustered", "p_value_adjusted",
            "ci_low", "ci_high", "significant", "n", "n_left_out", "n_tables", "note"]
    for kind in ("table", "question"):
        fit = regression[regression["property_kind"] == kind]
        est = fit[fit["dropped_reason"].isna() & fit["coef"].notna()]
        shown[f"regression on {kind} properties (estimated)"] = (
            _readable(est[[c for c in cols if c in est.columns]]),
            "Per model under test and pooled (__pooled__, when there are two or more); strict scores. " + ORACLE_NOTE)
        rest = fit[fit["dropped_reason"].notna()]
        shown[f"regression on {kind} properties (not estimated)"] = (
            _readable(rest[["model_name", "metric", "model_type", "property", "dropped_reason"]]),
            "Properties a fit could not estimate, and why.")
    from evaluation_py.choice.figures import choice_tables  # choice items
    shown.update(choice_tables(frames))
    return shown


def _mode_tables(frames: Mapping[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, str]]:
    """The inference-mode tables, where the frames hold them (evaluation_py.analysis.mode_comparison)."""
    shown = {}
    if "mode_gains" in frames:
        gains = frames["mode_gains"]
        shown["gain of pot and icot over direct and tcot"] = (
            gains[gains["scoring_mode"] == "strict"] if len(gains) else gains,
            "Per model, question family and metric (strict scores): the code mode's mean minus the text mode's.")
    if "execution_errors" in frames:
        shown["code runs by outcome"] = (frames["execution_errors"], "pot and icot code blocks by how they ended.")
    if "episode_turns" in frames:
        shown["turns used per episode"] = (frames["episode_turns"], "icot episodes by the turns they used.")
    return shown


def build_report(out_dir, scores: pd.DataFrame, frames: Mapping[str, pd.DataFrame], build_info: Mapping) -> pd.DataFrame:
    out = Path(str(out_dir or "reports"))
    figs = write_figures(frames, scores, out / "figures")
    info = {"build_date": datetime.date.today().isoformat(),
            **{k: ("not set (default)" if v is None else v) for k, v in build_info.items()}}
    index = write_report(out, report_tables(frames), figs, info, models=models_evaluated(scores))
    files = [Path(f) for f, _ in figs] + [Path(index)]
    return pd.DataFrame({"path": [str(f) for f in files],
                         "kind": ["figure" if f.suffix == ".png" else "report" for f in files],
                         "bytes": [f.stat().st_size if f.exists() else 0 for f in files]})
