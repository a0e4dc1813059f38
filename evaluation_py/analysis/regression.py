"""RQ5 / RQ6: effect of table or question properties on every registered metric of a question.

One fit per model under test (and one pooled over them with fixed effects per
model condition), per metric of :mod:`evaluation_py.scoring.metrics`: OLS on a graded metric
(precision, recall, F1) and a linear probability model (OLS) on a binary one (CC),
all on the same design, so CC coefficients read as changes in the probability of a
completely correct answer. Standard errors are clustered by ``table_id``; p-values are
Benjamini-Hochberg adjusted across the properties of one fit. See
:mod:`evaluation_py.analysis.design` for which properties enter the design.

The oracle (backend ``oracle``, the ground truth itself) is a check of the chain,
not a model: it has no rows here and is not part of the pooled fit. The pooled fit
needs two models under test; with fewer there are no ``__pooled__`` rows (it would
repeat the one model's fit). A fit whose outcome has no variation left to explain
(constant, or constant within each model condition of a pooled fit) gives rows with
a ``dropped_reason`` and no estimates, never p-values of a zero-residual fit.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from evaluation_py.scoring import metrics as metric_registry

from .coerce import to_number
from .design import build_design, question_property_values, table_property_values
from .schema import POOLED, QUESTION_REGRESSION_PROPERTIES, TABLE_PROPERTY_COLUMNS
from .selection import PRIMARY, is_oracle, left_out_mask, select_scores
from .stats import bh_adjust, ols_clustered

log = logging.getLogger(__name__)

REGRESSION_COLUMNS: list[str] = [
    "model_name",
    "metric",
    "model_type",
    "property",
    "coef",
    "std_err",
    "std_err_clustered",
    "p_value",
    "p_value_adjusted",
    "ci_low",
    "ci_high",
    "n",
    "n_left_out",
    "n_questions",
    "n_tables",
    "significant",
    "dropped_reason",
    "note",
]

LOGIT = "logit"


def model_type_of(metric: str) -> str:
    """ols for a graded metric, linear_probability_ols for a binary one (a registered metric's ``binary``)."""
    return "linear_probability_ols" if metric_registry.is_binary(metric) else "ols"


def default_metric_modes(scores: pd.DataFrame | None = None) -> dict[str, str]:
    """Every registered metric that has rows in ``scores`` (without rows: every scored one), on strict scores;
    so a verdict metric (the judge) is fitted only in builds that have one."""
    if scores is not None and len(scores) and "metric" in scores.columns:
        present = set(scores["metric"].unique())
        return {m: "strict" for m in metric_registry.names() if m in present}
    return {m: "strict" for m in metric_registry.scored_names()}


NO_COUNTS = {"n": 0, "n_left_out": 0, "n_questions": 0, "n_tables": 0}


def _empty_rows(model: str, metric: str, model_type: str, props: list[str], note: str | None,
                counts: Mapping[str, int] = NO_COUNTS, dropped: Mapping[str, str] | None = None) -> list[dict]:
    dropped = dropped or {}
    return [
        {
            "model_name": model, "metric": metric, "model_type": model_type, "property": p,
            "coef": np.nan, "std_err": np.nan, "std_err_clustered": np.nan, "p_value": np.nan,
            "p_value_adjusted": np.nan, "ci_low": np.nan, "ci_high": np.nan, **counts,
            "significant": False, "dropped_reason": dropped.get(p), "note": None if p in dropped else note,
        }
        for p in props
    ]


def _degenerate_outcome(y: np.ndarray, fe_codes: np.ndarray | None) -> str | None:
    """Why ``y`` leaves nothing to estimate, or None: constant, or constant within each
    fixed-effect level (the fixed effects then fit it exactly and every residual is 0)."""
    if not len(y):
        return None
    if np.all(y == y[0]):
        return f"outcome constant ({y[0]:g}) across the {len(y)} predictions of this fit: no variation to explain"
    if fe_codes is not None and pd.Series(y).groupby(fe_codes).nunique().max() == 1:
        return "outcome constant within each model condition: the fixed effects explain it all"
    return None


def _warn_failure(model: str, metric: str, props: list[str], note: str) -> None:
    log.warning("property regression: model %r, metric %s, properties %s: %s",
                model, metric, ", ".join(props), note)


def _fit_logit(X, y, groups, alpha):
    """statsmodels Logit with table-clustered SEs; raises when it does not converge."""
    from statsmodels.discrete.discrete_model import Logit
    from statsmodels.tools.sm_exceptions import (
        ConvergenceWarning,
        HessianInversionWarning,
        PerfectSeparationWarning,
    )

    if np.all(y == y[0]):
        raise RuntimeError("outcome constant: logit not identified")
    with warnings.catch_warnings():
        for w in (ConvergenceWarning, HessianInversionWarning, PerfectSeparationWarning):
            warnings.simplefilter("error", w)
        warnings.simplefilter("ignore", RuntimeWarning)
        res = Logit(y, X).fit(disp=0, maxiter=100, method="newton",
                              cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    if not res.mle_retvals.get("converged", False):
        raise RuntimeError("logit did not converge")
    ci = np.asarray(res.conf_int(alpha=alpha))
    se = np.sqrt(np.clip(np.diag(res.normalized_cov_params), 0.0, None))
    return (np.asarray(res.params), se, np.asarray(res.bse), np.asarray(res.pvalues), ci[:, 0], ci[:, 1])


def _rows_for_fit(model, metric, model_type, design, est, counts, alpha, notes, few_tables):
    coef, se, se_c, p, lo, hi = est
    idx = {c: i for i, c in enumerate(design.columns)}
    rows = []
    for prop in design.candidates:
        row = {
            "model_name": model, "metric": metric, "model_type": model_type, "property": prop,
            "coef": np.nan, "std_err": np.nan, "std_err_clustered": np.nan, "p_value": np.nan,
            "p_value_adjusted": np.nan, "ci_low": np.nan, "ci_high": np.nan, **counts,
            "significant": False, "dropped_reason": design.dropped.get(prop), "note": None,
        }
        if prop in design.dropped:
            rows.append(row)
            continue
        i = idx[prop]
        row.update(coef=float(coef[i]), std_err=float(se[i]), std_err_clustered=float(se_c[i]),
                   p_value=float(p[i]), ci_low=float(lo[i]), ci_high=float(hi[i]))
        note = []
        if prop in few_tables:
            note.append(f"unreliable: true on only {few_tables[prop]} table(s), clustered SE degenerate")
        if model_type == "logit":
            note.append("coefficient in log-odds")
        if prop in notes:
            note.append(notes[prop])
        row["note"] = "; ".join(note) or None
        rows.append(row)
    kept = [r for r in rows if r["dropped_reason"] is None and not (r["note"] or "").startswith("unreliable")]
    adj = bh_adjust([r["p_value"] for r in kept])
    for r, a in zip(kept, adj):
        r["p_value_adjusted"] = float(a)
        r["significant"] = bool(np.isfinite(a) and a < alpha)
    return rows


def _codes(df: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, list[str]]:
    """Integer codes of the combinations of ``cols`` present in ``df`` (sorted) and their
    labels ('a|b'); all zeros and one empty label when none of the columns exists."""
    cols = [c for c in cols if c in df.columns]
    if not len(df):
        return np.zeros(0, dtype=np.int64), []
    if not cols:
        return np.zeros(len(df), dtype=np.int64), [""]
    codes = df.groupby(cols, sort=True, observed=True, dropna=False).ngroup().to_numpy()
    _, first = np.unique(codes, return_index=True)
    keys = df[cols].iloc[first]
    labels = ["|".join(str(v) for v in row) for row in keys.itertuples(index=False)]
    return codes.astype(np.int64), labels


def _fit(model, sel_idx, ctx, metrics, alpha, include_logit, fe):
    """All rows for one model (or the pooled fit) and the metrics of one mode."""
    props = ctx["candidates"]
    values = ctx["values"][sel_idx]
    tcodes = ctx["table_codes"][sel_idx]
    n_q = int(np.count_nonzero(np.bincount(ctx["question_codes"][sel_idx]))) if len(sel_idx) else 0
    n_t = int(np.count_nonzero(np.bincount(tcodes))) if len(sel_idx) else 0
    counts = {"n": int(len(sel_idx)), "n_left_out": int(ctx["n_left_out"].get(model, 0)),
              "n_questions": n_q, "n_tables": n_t}
    fe_codes = fe_labels = None
    if fe is not None:
        all_codes, all_labels = fe
        codes, uniq = pd.factorize(all_codes[sel_idx], sort=True)
        if len(uniq) > 1:
            fe_codes, fe_labels = codes, [all_labels[u] for u in uniq]
    rows: list[dict] = []
    try:
        design = build_design(values, ctx["names"], fe_codes, fe_labels,
                              table_structure=ctx["kind"] == "table", missing=ctx["missing"],
                              candidates=props, unit="tables" if ctx["kind"] == "table" else "questions",
                              n_units=n_t if ctx["kind"] == "table" else n_q)
    except Exception as exc:  # noqa: BLE001 - reported as rows, never raised
        note = f"design failed: {type(exc).__name__}: {exc}"
        for metric in metrics:
            _warn_failure(model, metric, props, note)
            rows += _empty_rows(model, metric, model_type_of(metric), props, note, counts)
        return rows
    few: dict[str, int] = {}
    if ctx["kind"] == "table":
        ut, first = np.unique(tcodes, return_index=True)
        col_of = {p: i for i, p in enumerate(ctx["names"])}
        for p in design.properties:
            k = int(values[first, col_of[p]].sum())
            if k < 2 or len(ut) - k < 1:
                few[p] = k
    ys = {m: ctx["y"][m][sel_idx] for m in metrics}
    try:
        fits = ols_clustered(design.X, ys, tcodes, alpha=alpha, gram=design.gram)
    except Exception as exc:  # noqa: BLE001
        note = f"fit failed: {type(exc).__name__}: {exc}"
        for metric in metrics:
            _warn_failure(model, metric, design.properties, note)
            rows += _empty_rows(model, metric, model_type_of(metric), props, note, counts, design.dropped)
        return rows
    for metric in metrics:
        y = ys[metric]
        logit = include_logit and metric_registry.is_binary(metric)
        types = [model_type_of(metric), *([LOGIT] if logit else [])]
        degenerate = _degenerate_outcome(y, fe_codes)
        if degenerate is not None:
            # Estimates of a zero-residual fit are rounding noise (1e-15 with p = 1e-46): none shown.
            log.info("property regression: model %r, metric %s: %s", model, metric, degenerate)
            dropped = {p: design.dropped.get(p, degenerate) for p in props}
            for model_type in types:
                rows += _empty_rows(model, metric, model_type, props, None, counts, dropped)
            continue
        f = fits[metric]
        rows += _rows_for_fit(model, metric, model_type_of(metric), design,
                              (f.coef, f.std_err, f.std_err_clustered, f.p_value_clustered, f.ci_low, f.ci_high),
                              counts, alpha, ctx["notes"], few)
        if len(types) > 1:
            try:
                est = _fit_logit(design.X, y, tcodes, alpha)
                rows += _rows_for_fit(model, metric, LOGIT, design, est, counts,
                                      alpha, ctx["notes"], few)
            except Exception as exc:  # noqa: BLE001
                note = f"logit not estimated: {type(exc).__name__}: {exc}"
                _warn_failure(model, f"{metric} (logit)", design.properties, note)
                rows += _empty_rows(model, metric, LOGIT, props, note, counts, design.dropped)
    return rows


def _outcomes(long: pd.DataFrame, metrics: list[str]) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """The predictions of long scores (the rows of the first metric) and each metric's values
    aligned to them, by ``cache_key`` (or model, condition and question where there is none)."""
    if long.empty or "metric" not in long.columns:
        return long, {m: np.zeros(0) for m in metrics}
    keys = ["cache_key"] if "cache_key" in long.columns else \
        [c for c in ("model_name", "backend", "table_format", "inference_mode", "question_id") if c in long.columns]
    # integer codes, not string indexes: a long frame has a row per prediction and metric
    pred = (pd.factorize(long[keys[0]])[0] if len(keys) == 1 else
            long.groupby(keys, sort=False, dropna=False).ngroup().to_numpy())
    metric_codes, metric_names = pd.factorize(long["metric"])
    code_of = {m: i for i, m in enumerate(metric_names)}
    values = to_number(long["value"])
    rows = {m: np.flatnonzero(metric_codes == code_of[m]) if m in code_of else np.zeros(0, dtype=np.int64)
            for m in metrics}
    base_rows = rows[metrics[0]]
    base_pred = pred[base_rows]
    if len(np.unique(base_pred)) < len(base_pred):
        raise ValueError(f"scores: a prediction has more than one {metrics[0]!r} row in one scoring mode")
    ys = {metrics[0]: values[base_rows]}
    for m in metrics[1:]:
        at = np.full(int(pred.max()) + 1, -1, dtype=np.int64)
        at[pred[rows[m]]] = rows[m]
        pos = at[base_pred]
        ys[m] = np.where(pos >= 0, values[np.clip(pos, 0, None)], np.nan)
    return long.iloc[base_rows], ys


def property_regression(
    scores: pd.DataFrame,
    tables: pd.DataFrame,
    questions: pd.DataFrame | None = None,
    metric_modes: Mapping[str, str] | None = None,
    properties: Sequence[str] | None = None,
    kind: str = "table",
    models: Sequence[str] | None = None,
    table_format: str | Sequence[str] | None = PRIMARY,
    pooled: bool = True,
    include_logit: bool = False,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Regress each metric of a question (OLS; a linear probability model for a binary one) on properties.

    Parameters
    ----------
    scores, tables, questions: the inputs described in the module docs; ``scores`` long
        (``eval_scores``: one row per prediction, scoring mode and metric).
    metric_modes: registered metric -> scoring mode of the rows it uses (default: every
        registered metric, strict). In paper mode left-out rows are excluded.
    properties: the candidate properties (default: the 23 table properties, or for
        ``kind='question'`` the keys of ``QUESTION_REGRESSION_PROPERTIES``).
    kind: 'table' (properties of the question's table) or 'question'.
    models: model names expected; one without rows gets a row per property with a note.
        Default: the model names present in ``scores``. Oracle models (backend
        ``oracle``) are never fitted, whether named here or not.
    table_format: 'primary' (default: per model its primary format), a format / list,
        or None (all formats; fixed effects per (backend, table_format) condition).
    pooled: also fit the models under test together (model_name ``__pooled__``) with
        fixed effects per model condition, when there are at least two of them.
    include_logit: also fit each binary metric (CC) with a logit (model_type 'logit',
        log-odds), where it converges; otherwise rows with a note.

    Returns a DataFrame with ``REGRESSION_COLUMNS``; never raises for data problems.
    """
    if kind not in ("table", "question"):
        raise ValueError("kind must be 'table' or 'question'")
    metric_modes = dict(metric_modes or default_metric_modes(scores))
    bad = [m for m in metric_modes if m not in metric_registry.names()]
    if bad:
        raise ValueError(f"unknown metrics {bad}: registered are {', '.join(metric_registry.names())}")

    notes: dict[str, str] = {}
    if kind == "table":
        candidates = list(properties) if properties is not None else list(TABLE_PROPERTY_COLUMNS)
        vals, missing = table_property_values(tables, candidates) if tables is not None and "table_id" in tables.columns \
            else (pd.DataFrame(index=pd.Index([], name="table_id")), list(candidates))
        key = "table_id"
    else:
        candidates = list(properties) if properties is not None else list(QUESTION_REGRESSION_PROPERTIES)
        if questions is not None and "question_id" in questions.columns:
            vals, missing, notes = question_property_values(questions, candidates)
        else:
            vals, missing = pd.DataFrame(index=pd.Index([], name="question_id")), list(candidates)
        key = "question_id"
    names = [c for c in candidates if c in vals.columns]
    vals = vals[names]

    # only the columns a fit reads: every row filter below copies what it keeps
    scores = scores[[c for c in ("cache_key", "model_name", "backend", "table_format", "inference_mode",
                                 "scoring_mode", "question_id", "table_id", "metric", "value", "left_out")
                     if c in scores.columns]]
    oracle = is_oracle(scores)
    oracle_names = set(scores.loc[oracle, "model_name"].astype(str)) if oracle.any() else set()
    if oracle_names:
        log.info("property regression: oracle model(s) %s left out (a check of the chain, not a model)",
                 ", ".join(sorted(oracle_names)))
        scores = scores.loc[~oracle]
    if models is None:
        models = sorted(scores["model_name"].dropna().unique().tolist()) if len(scores) else []
    models = [str(m) for m in models if str(m) not in oracle_names]

    out: list[dict] = []
    by_mode: dict[str, list[str]] = {}
    for metric, mode in metric_modes.items():
        # A verdict metric (the judge) has rows only where there is a verdict: fitted in a pass of its
        # own, so that its gaps do not drop rows of the other metrics (a pass keeps rows with all).
        by_mode.setdefault((mode, metric_registry.get(metric).reads == "verdict"), []).append(metric)

    for (mode, _), metrics in by_mode.items():
        long = select_scores(scores, scoring_mode=mode, table_format=table_format, exclude_left_out=False,
                             metric=metrics) if len(scores) else scores
        sel, ys = _outcomes(long, metrics)
        lo = left_out_mask(sel)
        n_left_out = sel.loc[lo].groupby("model_name").size().to_dict() if lo.any() else {}
        n_left_out[POOLED] = int(lo.sum())
        sel = sel.loc[~lo]
        ys = {m: y[~lo] for m, y in ys.items()}
        if len(sel):
            pos = vals.index.get_indexer(sel[key])
            ok = pos >= 0
            for m in metrics:
                ok &= np.isfinite(ys[m])
            n_lost = int((~ok).sum())
            if n_lost:
                log.info("property regression (%s): %d %s-mode rows without %s properties or metric ignored",
                         kind, n_lost, mode, kind)
            sel, pos = sel.loc[ok], pos[ok]
            ys = {m: y[ok] for m, y in ys.items()}
        else:
            pos = np.zeros(0, dtype=int)
        model_codes, model_names = _codes(sel, ["model_name"])
        # A model condition; the inference mode joins it only where it varies (a constant adds no level).
        condition = ["backend", "table_format"]
        if "inference_mode" in sel.columns and sel["inference_mode"].nunique() > 1:
            condition.append("inference_mode")
        cond_codes, cond_labels = _codes(sel, ["model_name", *condition])
        within_codes, within_labels = _codes(sel, condition)
        ctx = {
            "kind": kind,
            "candidates": candidates,
            "names": names,
            "missing": missing,
            "notes": notes,
            "values": vals.to_numpy(dtype=float)[pos] if len(sel) else np.zeros((0, len(names))),
            "table_codes": pd.factorize(sel["table_id"])[0] if len(sel) else np.zeros(0, dtype=int),
            "question_codes": pd.factorize(sel["question_id"])[0] if len(sel) else np.zeros(0, dtype=int),
            "y": ys,
            "n_left_out": n_left_out,
        }
        order = np.argsort(model_codes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(model_codes, minlength=len(model_names)))])
        code_of = {m: i for i, m in enumerate(model_names)}
        for model in models:
            c = code_of.get(model)
            idx = np.sort(order[bounds[c]:bounds[c + 1]]) if c is not None else np.zeros(0, dtype=int)
            if len(idx) == 0:
                note = f"no predictions for this model in {mode} mode"
                counts = {**NO_COUNTS, "n_left_out": int(n_left_out.get(model, 0))}
                for metric in metrics:
                    _warn_failure(model, metric, candidates, note)
                    out += _empty_rows(model, metric, model_type_of(metric), candidates, note, counts)
                    if include_logit and metric_registry.is_binary(metric):
                        out += _empty_rows(model, metric, LOGIT, candidates, note, counts)
                continue
            out += _fit(model, idx, ctx, metrics, alpha, include_logit, (within_codes, within_labels))
        # Pooled over one model would repeat its fit; the report and the yml say it is absent.
        if pooled and len(model_names) >= 2:
            out += _fit(POOLED, np.arange(len(sel)), ctx, metrics, alpha, include_logit, (cond_codes, cond_labels))
        elif pooled:
            log.info("property regression (%s, %s mode): no pooled fit, %d model(s) under test",
                     kind, mode, len(model_names))

    df = pd.DataFrame(out, columns=REGRESSION_COLUMNS)
    # Never present a missing estimate without saying why.
    miss = df["coef"].isna() & df["dropped_reason"].isna() & df["note"].isna()
    df.loc[miss, "note"] = "estimate not available"
    miss_p = df["coef"].notna() & df["p_value"].isna() & df["note"].isna()
    df.loc[miss_p, "note"] = "p-value not available (clustered SE undefined)"
    for c in ("n", "n_left_out", "n_questions", "n_tables"):
        df[c] = df[c].astype("int64")
    df["significant"] = df["significant"].astype(bool)
    return df


def property_regressions(scores: pd.DataFrame, tables: pd.DataFrame, questions: pd.DataFrame,
                         include_logit: bool = False) -> pd.DataFrame:
    """The table-property and the question-property fits in one frame (``property_kind``
    says which): what ``analysis_property_regression`` holds."""
    fits = [property_regression(scores, tables, questions, kind=kind, include_logit=include_logit)
            .assign(property_kind=kind) for kind in ("table", "question")]
    return pd.concat(fits, ignore_index=True)
