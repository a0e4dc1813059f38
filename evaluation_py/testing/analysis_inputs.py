"""Deterministic fake inputs (tables, questions, scores) for tests and the benchmark.

Property flags are consistent with ``docs/properties.md``: a child implies its parent,
balanced/unbalanced and symmetric/asymmetric exclude each other and one of each
holds under a nesting, ``standard_relational_table`` holds exactly when nothing else
does. ``planted`` effects (property -> change of F1) are added to each model's
per-question F1, with table-level and question-level noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from evaluation_py.scoring.scores import to_long
from generator_py.release.properties import TABLE_PROPERTY_COLUMNS

METRICS = ("precision", "recall", "f1", "cc")  # the HCT-QA metrics these fake scores stand for

SYN_DATASETS = ("accidents", "education", "health", "finance", "census_syn")
REAL_DATASETS = ("qnpc", "pak", "us_census", "arxiv")


def _nesting(rng, n, p, out, axis):
    nest = rng.random(n) < p
    bal = rng.random(n) < 0.6
    sym = rng.random(n) < 0.5
    out[f"{axis}_nesting"] = nest
    out[f"balanced_{axis}_nesting"] = nest & bal
    out[f"unbalanced_{axis}_nesting"] = nest & ~bal
    out[f"symmetric_{axis}_nesting"] = nest & sym
    out[f"asymmetric_{axis}_nesting"] = nest & ~sym


def _aggregation(rng, n, p, out, axis):
    agg = rng.random(n) < p
    kind = rng.integers(0, 3, n)  # 0 global, 1 local, 2 both
    term = rng.integers(0, 3, n)  # 0 explicit, 1 implicit, 2 both
    out[f"{axis}_aggregation"] = agg
    out[f"global_{axis}_aggregation"] = agg & (kind != 1)
    out[f"local_{axis}_aggregation"] = agg & (kind != 0)
    out[f"explicit_{axis}_aggregation"] = agg & (term != 1)
    out[f"implicit_{axis}_aggregation"] = agg & (term != 0)


def make_tables(n_tables: int, seed: int = 0, real_share: float = 0.2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    real = rng.random(n_tables) < real_share
    props: dict[str, np.ndarray] = {}
    _nesting(rng, n_tables, 0.55, props, "column")
    _nesting(rng, n_tables, 0.4, props, "row")
    _aggregation(rng, n_tables, 0.35, props, "column")
    _aggregation(rng, n_tables, 0.35, props, "row")
    props["row_group_label"] = rng.random(n_tables) < 0.25
    props["split_header_cell"] = rng.random(n_tables) < 0.15
    others = np.zeros(n_tables, dtype=bool)
    for k, v in props.items():
        others |= v
    props["standard_relational_table"] = ~others
    syn_ds = np.array(SYN_DATASETS)[rng.integers(0, len(SYN_DATASETS), n_tables)]
    real_ds = np.array(REAL_DATASETS)[rng.integers(0, len(REAL_DATASETS), n_tables)]
    df = pd.DataFrame({
        "table_id": [f"{'real' if r else 'syn'}--t{i:06d}" for i, r in enumerate(real)],
        "source": np.where(real, "real", "synthetic"),
        "dataset": np.where(real, real_ds, syn_ds),
    })
    for c in TABLE_PROPERTY_COLUMNS:
        df[c] = props.get(c, np.zeros(n_tables, dtype=bool))
    # a generator of its own, so adding the column left every other draw as it was
    df["n_cells"] = np.random.default_rng([seed, 1]).integers(20, 1200, n_tables)
    return df


def make_questions(tables: pd.DataFrame, per_table: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = len(tables) * per_table
    t_idx = np.repeat(np.arange(len(tables)), per_table)
    real = (tables["source"].to_numpy() == "real")[t_idx]
    agg = rng.random(n) < 0.3
    agg_type = rng.integers(0, 5, n)
    local = rng.random(n) < 0.5
    rank = rng.random(n) < 0.2
    topk = np.where(rank & (rng.random(n) < 0.5), rng.choice([1, 3, 5], n), -1)
    row_filter = rng.random(n) < 0.7
    n_cond = np.where(row_filter, rng.integers(1, 4, n), -1)
    df = pd.DataFrame({
        "question_id": [f"q{i:07d}" for i in range(n)],
        "table_id": tables["table_id"].to_numpy()[t_idx],
        "template_id": np.where(real, np.nan, rng.integers(1, 16, n).astype(float)),
        "aggregation": agg,
        "row_filter": row_filter,
        "yes_no": (rng.random(n) < 0.06) & ~agg,
        "rank": rank,
        "rank_report_top": pd.array(np.where(topk > 0, topk, 0), dtype="Int64"),
        "row_filter_condition_type_expression": rng.random(n) < 0.2,
        "row_filter_num_of_conditions": pd.array(np.where(n_cond > 0, n_cond, 0), dtype="Int64"),
        "aggregation_grouping_local": agg & local,
        "aggregation_grouping_global": agg & ~local,
        "answer_n_values": np.minimum(rng.geometric(0.3, n), 40).astype("int64"),
    })
    df.loc[df["rank_report_top"] == 0, "rank_report_top"] = pd.NA
    df.loc[df["row_filter_num_of_conditions"] == 0, "row_filter_num_of_conditions"] = pd.NA
    for i, a in enumerate(("min", "max", "sum", "avg", "count")):
        df[f"aggregation_aggregation_type_{a}"] = agg & (agg_type == i)
    return df


def make_scores(
    tables: pd.DataFrame,
    questions: pd.DataFrame,
    models: Sequence[str],
    seed: int = 2,
    planted: Mapping[str, float] | None = None,
    base: float = 0.6,
    noise: float = 0.12,
    table_noise: float = 0.05,
    scoring_modes: Sequence[str] = ("strict",),
    table_formats: Mapping[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """Long scores as ``eval_scores`` holds them: one row per (model, format, scoring mode,
    question, metric) for precision, recall, f1 and cc. ``planted`` keys are table or question
    property columns; their effect is added to F1 on rows where true."""
    rng = np.random.default_rng(seed)
    planted = dict(planted or {})
    tq = questions.merge(tables[["table_id", "source", "dataset", *[c for c in planted if c in tables.columns]]],
                         on="table_id", how="left", suffixes=("", "_t"))
    nq = len(tq)
    effect = np.zeros(nq)
    for prop, delta in planted.items():
        col = tq[prop] if prop in tq.columns else questions[prop]
        effect += delta * pd.array(col, dtype="boolean").fillna(False).to_numpy(dtype=float)
    t_codes = pd.factorize(tq["table_id"])[0]
    frames = []
    expected = tq["answer_n_values"].to_numpy()
    for mi, model in enumerate(models):
        skill = base + 0.25 * (0.5 - mi / max(1, len(models) - 1)) if len(models) > 1 else base
        table_re = rng.normal(0.0, table_noise, t_codes.max() + 1)[t_codes]
        fmts = (table_formats or {}).get(model, ("html",))
        for fmt in fmts:
            fmt_shift = 0.0 if fmt == "html" else -0.05
            f1 = np.clip(skill + fmt_shift + effect + table_re + rng.normal(0, noise, nq), 0.0, 1.0)
            recall = np.clip(f1 + rng.normal(0, 0.05, nq), 0.0, 1.0)
            precision = np.clip(2 * f1 - recall + rng.normal(0, 0.02, nq), 0.0, 1.0)
            cc = (rng.random(nq) < f1 ** 2).astype("int64")
            given = np.maximum(0, np.round(expected * rng.lognormal(-0.3 + 0.05 * mi, 0.4, nq))).astype("int64")
            for mode in scoring_modes:
                left_out = (rng.random(nq) < 0.05) if mode == "paper" else np.zeros(nq, dtype=bool)
                frames.append(pd.DataFrame({
                    "cache_key": [f"{model}--{fmt}--{q}" for q in tq["question_id"]],
                    "model_name": model,
                    "backend": "fake",
                    "table_format": fmt,
                    "inference_mode": "direct",
                    "scoring_mode": mode,
                    "question_id": tq["question_id"].to_numpy(),
                    "table_id": tq["table_id"].to_numpy(),
                    "source": tq["source"].to_numpy(),
                    "dataset": tq["dataset"].to_numpy(),
                    "template_id": tq["template_id"].to_numpy(),
                    "precision": precision,
                    "recall": recall,
                    "f1": f1,
                    "cc": cc.astype("float64"),
                    "left_out": left_out,
                    "n_values_expected": expected,
                    "n_values_given": given,
                }))
    return to_long(pd.concat(frames, ignore_index=True), METRICS)


def make_benchmark_inputs(n_tables: int, per_table: int, models: Sequence[str], seed: int = 0,
                          planted: Mapping[str, float] | None = None, **kw):
    tables = make_tables(n_tables, seed=seed)
    questions = make_questions(tables, per_table, seed=seed + 1)
    scores = make_scores(tables, questions, models, seed=seed + 2, planted=planted, **kw)
    return tables, questions, scores
