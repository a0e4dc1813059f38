"""Figure 3: what the benchmark is made of (tables and questions per domain, template,
property and property combination)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .coerce import to_flag, to_number
from .schema import QUESTION_BREAKDOWN_PROPERTIES, TABLE_MAIN_PROPERTIES, TABLE_PROPERTY_COLUMNS

COMPOSITION_COLUMNS = ["facet", "key", "n_tables", "n_questions"]
OTHER = "(other combinations)"
NONE = "(no property)"


def _questions_per_table(tables: pd.DataFrame, questions: pd.DataFrame) -> pd.Series:
    counts = questions.groupby("table_id").size() if len(questions) else pd.Series(dtype="int64")
    return counts.reindex(tables["table_id"]).fillna(0).astype("int64").set_axis(tables.index)


def _originals(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["variant"] == "original"] if "variant" in frame.columns else frame


def benchmark_composition(tables: pd.DataFrame, questions: pd.DataFrame, top_combinations: int = 30,
                          include_question_properties: bool = False) -> pd.DataFrame:
    """Counts per facet: 'domain' (dataset, sorted by n_tables), 'template' (template_id),
    'property' (each of the 23 table properties, tables where it holds),
    'property_combination' (as the paper's Figure 3(a): the set of true main properties,
    ``TABLE_MAIN_PROPERTIES``, joined with ' + ', or 'standard_relational_table' for a
    table with none; the ``top_combinations`` most frequent plus, when more exist, one
    '(other combinations) xK' row, so that the facet sums to all tables). With ``include_question_properties`` a facet
    'question_property' counts the questions having each question property.

    Columns: facet, key, n_tables, n_questions."""
    # originals only: an obfuscated twin would count its table and questions twice
    tables, questions = _originals(tables), _originals(questions)
    tables = tables.drop_duplicates("table_id")
    qpt = _questions_per_table(tables, questions)
    rows: list[dict] = []

    if "dataset" in tables.columns:
        dom = pd.DataFrame({"key": tables["dataset"].astype(str), "nq": qpt})
        g = dom.groupby("key").agg(n_tables=("nq", "size"), n_questions=("nq", "sum")).reset_index()
        g = g.sort_values(["n_tables", "key"], ascending=[False, True])
        rows += [{"facet": "domain", "key": r.key, "n_tables": r.n_tables, "n_questions": r.n_questions}
                 for r in g.itertuples()]

    if "template_id" in questions.columns:
        tid = to_number(questions["template_id"])
        q = questions[np.isfinite(tid)]
        g = q.groupby(tid[np.isfinite(tid)].astype("int64")).agg(
            n_tables=("table_id", "nunique"), n_questions=("question_id", "size"))
        rows += [{"facet": "template", "key": str(int(k)), "n_tables": int(r.n_tables),
                  "n_questions": int(r.n_questions)} for k, r in g.sort_index().iterrows()]

    flags = {p: to_flag(tables[p]) for p in TABLE_PROPERTY_COLUMNS if p in tables.columns}
    nq = qpt.to_numpy()
    for p, v in flags.items():
        rows.append({"facet": "property", "key": p, "n_tables": int(v.sum()), "n_questions": int(nq[v].sum())})

    # Main properties, not leaves: 19 leaves make nearly every table its own combination.
    main = [p for p in TABLE_MAIN_PROPERTIES if p in flags]
    if main and len(tables):
        mat = np.column_stack([flags[p] for p in main])
        names = np.array(main, dtype=object)
        combo = [" + ".join(names[r]) if r.any() else NONE for r in mat]
        if "standard_relational_table" in flags:
            combo = [("standard_relational_table" if c == NONE and s else c)
                     for c, s in zip(combo, flags["standard_relational_table"])]
        cdf = pd.DataFrame({"key": combo, "nq": nq})
        g = cdf.groupby("key").agg(n_tables=("nq", "size"), n_questions=("nq", "sum")).reset_index()
        g = g.sort_values(["n_tables", "key"], ascending=[False, True])
        top, rest = g.iloc[:top_combinations], g.iloc[top_combinations:]
        rows += [{"facet": "property_combination", "key": r.key, "n_tables": int(r.n_tables),
                  "n_questions": int(r.n_questions)} for r in top.itertuples()]
        if len(rest):
            rows.append({"facet": "property_combination", "key": f"{OTHER} x{len(rest)}",
                         "n_tables": int(rest["n_tables"].sum()), "n_questions": int(rest["n_questions"].sum())})

    if include_question_properties:
        for p in QUESTION_BREAKDOWN_PROPERTIES:
            if p in questions.columns:
                v = to_flag(questions[p])
                rows.append({"facet": "question_property", "key": p,
                             "n_tables": int(questions.loc[v, "table_id"].nunique()), "n_questions": int(v.sum())})

    out = pd.DataFrame(rows, columns=COMPOSITION_COLUMNS)
    out["n_tables"] = out["n_tables"].astype("int64")
    out["n_questions"] = out["n_questions"].astype("int64")
    return out


# ------------------------------------------------------------------ choice items

CHOICE_FACETS = ("choice_subset", "choice_strategy")


def choice_item_composition(items: pd.DataFrame) -> pd.DataFrame:
    """Counts of benchmark_choice_items in the composition's columns: facet 'choice_subset' (key: the
    subset) and 'choice_strategy' (key: `subset: distractor_strategy`), n_tables the distinct tables the
    items are about, n_questions the items (an item is a question asked with two options). Rows in
    subset order (benchmark_choice_items' SUBSETS), then strategy by name."""
    missing = [c for c in ("table_id", "subset", "distractor_strategy") if c not in items.columns]
    if missing:
        raise ValueError(f"choice items lack columns {', '.join(missing)}")
    from generator_py.choice_items import SUBSETS

    unknown = sorted(set(items["subset"]) - set(SUBSETS))
    if unknown:
        raise ValueError(f"choice items: unknown subset(s) {', '.join(map(str, unknown))}")
    order = {s: i for i, s in enumerate(SUBSETS)}
    rows: list[dict] = []
    for facet, keys in (("choice_subset", ["subset"]), ("choice_strategy", ["subset", "distractor_strategy"])):
        g = items.groupby(keys).agg(n_tables=("table_id", "nunique"), n_questions=("table_id", "size")).reset_index()
        g = g.assign(_order=g["subset"].map(order)).sort_values(["_order"] + keys)
        for r in g.to_dict("records"):
            key = r["subset"] if facet == "choice_subset" else f"{r['subset']}: {r['distractor_strategy']}"
            rows.append({"facet": facet, "key": key, "n_tables": int(r["n_tables"]), "n_questions": int(r["n_questions"])})
    out = pd.DataFrame(rows, columns=COMPOSITION_COLUMNS)
    return out.astype({"n_tables": "int64", "n_questions": "int64"})
