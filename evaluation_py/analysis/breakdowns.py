"""Score breakdowns behind the paper's tables and figures (tidy DataFrames).

Every function reads long scores (``eval_scores``: one row per prediction, scoring mode
and metric) and returns one row per group and metric with ``model_name``,
``inference_mode``, ``scoring_mode``, the group keys, ``metric``, the mean ``value``,
``n`` (the predictions scored: the rows the mean is over) and ``n_left_out`` (the
predictions paper mode left out, 0 in strict mode), as in ``eval_summary``; any
registered metric comes through. The means are :func:`evaluation_py.scoring.scores.mean_scores`.
By default each model contributes its primary table format only (see
:func:`selection.select_scores`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as _sps

from evaluation_py.scoring.scores import mean_scores

from .coerce import to_flag, to_number
from .schema import AGGREGATION_TYPES, QUESTION_BREAKDOWN_PROPERTIES, aggregation_type_column
from .selection import PRIMARY, models_under_test, select_scores

BASE_KEYS = ["model_name", "inference_mode", "scoring_mode"]
MEAN = ["metric", "value", "n", "n_left_out"]


def _select(scores, scoring_mode, table_format):
    # Left-out rows stay in: mean_scores counts them in n_left_out and nowhere else.
    return select_scores(scores, scoring_mode, table_format, exclude_left_out=False)


def _question_values(sel: pd.DataFrame, questions: pd.DataFrame | None, col: str) -> pd.Series | None:
    """Column ``col`` for the rows of ``sel``: from ``sel`` itself, else from ``questions``
    (joined on question_id; rows without a question get null)."""
    if col in sel.columns:
        return sel[col]
    if questions is None or col not in questions.columns:
        return None
    q = questions.drop_duplicates("question_id").set_index("question_id")[col]
    pos = q.index.get_indexer(sel["question_id"])
    return pd.Series(q.iloc[np.clip(pos, 0, None)].to_numpy() if len(q) else np.full(len(sel), np.nan),
                     index=sel.index).where(pos >= 0)


class _QuestionLookup:
    """Question columns for the rows of a score selection: the question index is looked
    up once, each flag is computed once per question and then mapped to the rows."""

    def __init__(self, sel: pd.DataFrame, questions: pd.DataFrame | None):
        self.sel = sel
        self.q = questions.drop_duplicates("question_id") if questions is not None else None
        self._pos = None

    @property
    def pos(self) -> np.ndarray:
        if self._pos is None:
            self._pos = pd.Index(self.q["question_id"]).get_indexer(self.sel["question_id"])
        return self._pos

    def flags(self, col: str) -> np.ndarray | None:
        if col in self.sel.columns:
            return to_flag(self.sel[col])
        if self.q is None or col not in self.q.columns:
            return None
        f = to_flag(self.q[col])
        if not len(f):
            return np.zeros(len(self.sel), dtype=bool)
        return np.where(self.pos >= 0, f[np.clip(self.pos, 0, None)], False)


def overall_scores(scores: pd.DataFrame, scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Mean of each metric per model and mode (the 'Average' columns of Table IV)."""
    return mean_scores(_select(scores, scoring_mode, table_format), BASE_KEYS)


def scores_by_template(scores: pd.DataFrame, questions: pd.DataFrame | None = None,
                       scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Figure 39: per model x synthetic question template (``template_id`` 1..15)."""
    return _by_whole_number(_select(scores, scoring_mode, table_format), questions, "template_id")


def _by_whole_number(df: pd.DataFrame, questions: pd.DataFrame | None, column: str) -> pd.DataFrame:
    """Means per model x the question's whole-number `column`; questions without a value are left out."""
    values = _question_values(df, questions, column)
    if values is None:
        return pd.DataFrame(columns=[*BASE_KEYS, column, *MEAN])
    values = pd.Series(to_number(values), index=df.index)
    keep = values.notna().to_numpy()
    out = mean_scores(df.loc[keep].assign(**{column: values[keep].astype("int64")}), [*BASE_KEYS, column])
    out[column] = out[column].astype("int64")
    return out


def scores_by_question_property(scores: pd.DataFrame, questions: pd.DataFrame,
                                properties: Sequence[str] | None = None,
                                scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Figure 9(a): per model x question property, over the questions where it holds.

    Numeric properties (e.g. ``rank_report_top``) count as holding when set and > 0.
    A question counts under every property it has."""
    props = list(properties) if properties is not None else list(QUESTION_BREAKDOWN_PROPERTIES)
    sel = _select(scores, scoring_mode, table_format)
    look = _QuestionLookup(sel, questions)
    parts = []
    for p in props:
        flags = look.flags(p)
        if flags is None:
            continue
        sub = sel[flags]
        if sub.empty:
            continue
        parts.append(mean_scores(sub, BASE_KEYS).assign(property=p))
    cols = [*BASE_KEYS, "property", *MEAN]
    if not parts:
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)[cols]


def scores_by_aggregation_type(scores: pd.DataFrame, questions: pd.DataFrame,
                               scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Figure 9(b): per model x aggregation type (min, max, sum, avg, count)."""
    cols = {a: aggregation_type_column(a) for a in AGGREGATION_TYPES}
    sel = _select(scores, scoring_mode, table_format)
    look = _QuestionLookup(sel, questions)
    parts = []
    for agg, c in cols.items():
        flags = look.flags(c)
        if flags is None:
            continue
        sub = sel[flags]
        if not sub.empty:
            parts.append(mean_scores(sub, BASE_KEYS).assign(aggregation_type=agg))
    out_cols = [*BASE_KEYS, "aggregation_type", *MEAN]
    if not parts:
        return pd.DataFrame(columns=out_cols)
    return pd.concat(parts, ignore_index=True)[out_cols]


def scores_by_table_format(scores: pd.DataFrame, scoring_mode=None) -> pd.DataFrame:
    """Table V: per model x table format (all formats), with the difference of each metric to the
    model's HTML result (``value_minus_html``, NaN without HTML rows)."""
    sel = _select(scores, scoring_mode, None)
    out = mean_scores(sel, [*BASE_KEYS, "table_format"])
    keys = [*BASE_KEYS, "metric"]
    html = out[out["table_format"] == "html"].set_index(keys)["value"]
    key = pd.MultiIndex.from_frame(out[keys])
    out["value_minus_html"] = out["value"].to_numpy() - html.reindex(key).to_numpy()
    return out[[*BASE_KEYS, "table_format", *MEAN, "value_minus_html"]]


VERBOSITY_COLUMNS = [*BASE_KEYS, "backend", "mean_values_given", "mean_values_expected", "verbosity_ratio", *MEAN]


def answer_verbosity(scores: pd.DataFrame, scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Figure 38: per model, mean number of values given vs expected, with each metric.

    ``n_values_given`` and ``n_values_expected`` of a prediction must count values the
    same way (``eval_scores`` counts distinct normalised values on both sides), so that
    an answer equal to the ground truth has ``verbosity_ratio`` = mean given / mean
    expected = 1. The counts are averaged over the same predictions as the metrics.
    ``backend`` lets fits across models leave the oracle out."""
    sel = _select(scores, scoring_mode, table_format)
    if sel.empty:
        return pd.DataFrame(columns=VERBOSITY_COLUMNS)
    if "backend" not in sel.columns:
        sel = sel.assign(backend=None)
    # One row per prediction (every metric has the same ones): the two counts as long scores of their own.
    one = sel[sel["metric"] == sel["metric"].iloc[0]]
    counts = pd.concat([one.assign(metric=c, value=one[c].astype("float64")) for c in
                        ("n_values_given", "n_values_expected")], ignore_index=True)
    means = mean_scores(counts, BASE_KEYS).set_index([*BASE_KEYS, "metric"])["value"].unstack("metric")
    out = mean_scores(sel, BASE_KEYS)
    key = pd.MultiIndex.from_frame(out[BASE_KEYS])
    out["mean_values_given"] = means["n_values_given"].reindex(key).to_numpy()
    out["mean_values_expected"] = means["n_values_expected"].reindex(key).to_numpy()
    backend = sel.groupby(BASE_KEYS, observed=True, sort=True)["backend"].first()
    out["backend"] = backend.reindex(key).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["verbosity_ratio"] = out["mean_values_given"] / out["mean_values_expected"]
    return out[VERBOSITY_COLUMNS]


def verbosity_correlation(verbosity: pd.DataFrame) -> pd.DataFrame:
    """Across the models under test (the oracle left out), per inference mode, scoring mode and
    metric: Pearson and Spearman correlation of mean values given with the metric (RQ8 reads
    recall). NaN (with ``n_models`` < 3) when not computable."""
    keys = ["inference_mode", "scoring_mode", "metric"]
    cols = [*keys, "n_models", "pearson_r", "pearson_p", "spearman_rho", "spearman_p"]
    rows = []
    for group, sub in models_under_test(verbosity).groupby(keys, sort=True):
        x, y = sub["mean_values_given"].to_numpy(float), sub["value"].to_numpy(float)
        ok = np.isfinite(x) & np.isfinite(y)
        x, y = x[ok], y[ok]
        if len(x) >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
            pr, pp = _sps.pearsonr(x, y)
            sr, sp = _sps.spearmanr(x, y)
        else:
            pr = pp = sr = sp = np.nan
        rows.append({**dict(zip(keys, group)), "n_models": int(len(x)), "pearson_r": float(pr),
                     "pearson_p": float(pp), "spearman_rho": float(sr), "spearman_p": float(sp)})
    return pd.DataFrame(rows, columns=cols)


def scores_by_source_dataset(scores: pd.DataFrame, scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Table IV layout: per model x source x dataset."""
    return mean_scores(_select(scores, scoring_mode, table_format), [*BASE_KEYS, "source", "dataset"])


CREATION_TYPES = ("manual", "model_generated", "synthetic")  # benchmark_questions.creation_type


def scores_by_creation_type(scores: pd.DataFrame, questions: pd.DataFrame | None = None,
                            scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Figure 8: per model x how the question was made (``creation_type``: manual, model_generated,
    synthetic; null for a real question the release marks neither, kept as its own group)."""
    df = _select(scores, scoring_mode, table_format)
    kind = _question_values(df, questions, "creation_type")
    if kind is None:
        return pd.DataFrame(columns=[*BASE_KEYS, "creation_type", *MEAN])
    return mean_scores(df.assign(creation_type=kind.to_numpy()), [*BASE_KEYS, "creation_type"])


def scores_by_tables_read(scores: pd.DataFrame, questions: pd.DataFrame | None = None,
                          scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Per model x how many tables the question reads (``n_tables``: 1, or 2 for a question over two tables;
    benchmark_question_tables); questions without a count are left out."""
    return _by_whole_number(_select(scores, scoring_mode, table_format), questions, "n_tables")


NO_OLAP_OPERATION = "none"  # the olap_operation group of the questions of every other family


def scores_by_olap_operation(scores: pd.DataFrame, questions: pd.DataFrame | None = None,
                             scoring_mode=None, table_format=PRIMARY) -> pd.DataFrame:
    """Per model x the OLAP operation the question asks (``olap_operation``, its family's: roll-up, drill-down,
    grouping sets), the questions of the other families as one group, NO_OLAP_OPERATION."""
    df = _select(scores, scoring_mode, table_format)
    op = _question_values(df, questions, "olap_operation")
    if op is None:
        return pd.DataFrame(columns=[*BASE_KEYS, "olap_operation", *MEAN])
    op = op.where(op.notna(), NO_OLAP_OPERATION).astype(str)
    return mean_scores(df.assign(olap_operation=op.to_numpy()), [*BASE_KEYS, "olap_operation"])
