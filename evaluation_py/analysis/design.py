"""Design matrices for the property regressions: which properties enter, which are
dropped and why, and a numerically full-rank result.

Rules, applied in this order (each dropped property keeps a ``dropped_reason``):

1. a property whose column is missing from the input is dropped;
2. ``standard_relational_table`` is the baseline (the intercept): a table with none of
   the other properties;
3. a property that is constant over the rows of the fit is dropped (its effect is not
   identified);
4. a parent flag (``column_nesting`` ...) is dropped when any of its children enters:
   the children split it, and keeping it would make the design collinear;
5. exhaustive exclusive splits of a parent (balanced/unbalanced, symmetric/asymmetric):
   the first split of a parent keeps both members (together they stand for the
   parent), each later split keeps one member and its other one is the reference;
6. whatever is still a linear combination of the intercept, the fixed effects and the
   properties already kept (checked on X'X with a pivoted Cholesky, in candidate order)
   is dropped, the reason naming the combination.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .schema import (
    QUESTION_REGRESSION_PROPERTIES,
    TABLE_BASELINE,
    TABLE_EXCLUSIVE_SPLITS,
    TABLE_PARENTS,
)
from .coerce import to_flag, to_number
from .stats import dependent_columns

INTERCEPT = "intercept"


@dataclass
class Design:
    X: np.ndarray
    columns: list[str]
    properties: list[str]
    candidates: list[str]
    dropped: dict[str, str] = field(default_factory=dict)
    gram: np.ndarray | None = None

    @property
    def property_index(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.columns) if c in set(self.properties)}


def _bool_values(s: pd.Series) -> np.ndarray:
    return to_flag(s).astype(float)


def table_property_values(tables: pd.DataFrame, properties: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """Float 0/1 matrix (index table_id) of the table properties present; missing names."""
    t = tables.drop_duplicates("table_id", keep="first").set_index("table_id")
    present = [p for p in properties if p in t.columns]
    missing = [p for p in properties if p not in t.columns]
    vals = pd.DataFrame({p: _bool_values(t[p]) for p in present}, index=t.index)
    return vals, missing


def question_property_values(questions: pd.DataFrame, properties: list[str]) -> tuple[pd.DataFrame, list[str], dict[str, str]]:
    """Float matrix (index question_id) of the question properties (see
    ``QUESTION_REGRESSION_PROPERTIES`` for the derived ones); missing names; notes."""
    q = questions.drop_duplicates("question_id", keep="first").set_index("question_id")
    cols: dict[str, np.ndarray] = {}
    missing: list[str] = []
    notes: dict[str, str] = {}
    for p in properties:
        how, src = QUESTION_REGRESSION_PROPERTIES.get(p, ("bool", p))
        if src not in q.columns:
            missing.append(p)
            continue
        s = q[src]
        if how == "bool":
            cols[p] = _bool_values(s)
        else:
            v = to_number(s)
            if how == "present":
                cols[p] = (np.nan_to_num(v, nan=0.0) > 0).astype(float)
                notes[p] = f"true when {src} is set (> 0)"
            elif how == "count":
                cols[p] = np.nan_to_num(v, nan=0.0)
                notes[p] = f"per additional unit of {src} (null read as 0)"
            elif how == "log2p1":
                cols[p] = np.log2(1.0 + np.clip(np.nan_to_num(v, nan=0.0), 0.0, None))
                notes[p] = f"per doubling of 1 + {src}"
            else:  # pragma: no cover - schema typo
                raise ValueError(how)
    return pd.DataFrame(cols, index=q.index), missing, notes


def _describe_combination(weights: dict[int, float], names: list[str]) -> str:
    if not weights:
        return "0"
    parts = []
    for idx, w in sorted(weights.items()):
        name = names[idx]
        mag = abs(w)
        term = name if abs(mag - 1.0) < 1e-6 else f"{mag:.3g}*{name}"
        parts.append(("- " if w < 0 else "+ ") + term)
    s = " ".join(parts)
    return s[2:] if s.startswith("+ ") else "-" + s[1:]


def build_design(
    values: np.ndarray,
    names: list[str],
    fe_codes: np.ndarray | None = None,
    fe_labels: list[str] | None = None,
    table_structure: bool = True,
    missing: list[str] | None = None,
    candidates: list[str] | None = None,
    unit: str = "tables",
    n_units: int | None = None,
    tol: float = 1e-8,
) -> Design:
    """Build a full-rank design from per-row property ``values`` (N x P, float).

    ``fe_codes`` are 0-based codes of fixed-effect levels (level 0 is absorbed by the
    intercept); ``table_structure`` applies the table-property rules 2, 4 and 5.
    ``candidates`` is the order of the output rows (default: ``missing`` + ``names``
    in the order given).
    """
    n = values.shape[0]
    missing = list(missing or [])
    cand = list(candidates) if candidates is not None else [*names, *missing]
    dropped: dict[str, str] = {p: "column missing from the input" for p in missing}
    col_of = {p: i for i, p in enumerate(names)}
    units = f"{n_units} {unit}" if n_units is not None else unit

    active = [p for p in names if p not in dropped]
    if table_structure and TABLE_BASELINE in active:
        dropped[TABLE_BASELINE] = "baseline: the intercept is a table with no other property"
        active.remove(TABLE_BASELINE)

    for p in list(active):
        v = values[:, col_of[p]]
        if n == 0 or np.all(v == v[0]):
            val = "no rows" if n == 0 else f"always {v[0]:g}"
            dropped[p] = f"constant across the {units} of this fit ({val}): effect not identified"
            active.remove(p)

    if table_structure:
        for parent, children in TABLE_PARENTS.items():
            kids = [c for c in children if c in active]
            if parent in active and kids:
                dropped[parent] = "parent flag: replaced by its children " + ", ".join(kids)
                active.remove(parent)
        seen_split: dict[str, int] = {}
        for parent, a, b in TABLE_EXCLUSIVE_SPLITS:
            if a in active and b in active and parent not in active:
                k = seen_split.get(parent, 0)
                seen_split[parent] = k + 1
                if k >= 1:
                    dropped[a] = (
                        f"reference level: {a} + {b} = {parent}, already represented by the "
                        f"other split of {parent}; {b} is read against {a}"
                    )
                    active.remove(a)

    n_fe = 0
    fe_cols: list[np.ndarray] = []
    fe_names: list[str] = []
    if fe_codes is not None and n:
        levels = int(fe_codes.max()) + 1
        for lvl in range(1, levels):
            fe_cols.append((fe_codes == lvl).astype(float))
            label = fe_labels[lvl] if fe_labels is not None else str(lvl)
            fe_names.append(f"fe[{label}]")
        n_fe = len(fe_cols)

    columns = [INTERCEPT, *fe_names, *active]
    X = np.empty((n, len(columns)), order="F")
    X[:, 0] = 1.0
    for i, c in enumerate(fe_cols):
        X[:, 1 + i] = c
    for i, p in enumerate(active):
        X[:, 1 + n_fe + i] = values[:, col_of[p]]
    gram = X.T @ X if n else np.zeros((len(columns), len(columns)))
    if n:
        kept, dep = dependent_columns(gram, tol=tol)
        if dep:
            for j, weights in dep.items():
                name = columns[j]
                if name in active:
                    dropped[name] = (
                        "linear combination of other columns: "
                        f"{name} = {_describe_combination(weights, columns)}"
                    )
            keep_idx = sorted(kept)
            columns = [columns[i] for i in keep_idx]
            X = X[:, keep_idx]
            gram = gram[np.ix_(keep_idx, keep_idx)]
    props = [c for c in columns if c in active and c not in dropped]
    return Design(X=X, columns=columns, properties=props, candidates=cand, dropped=dropped, gram=gram)
