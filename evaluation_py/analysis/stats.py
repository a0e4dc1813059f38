"""Small numerical helpers: OLS with table-clustered standard errors, BH adjustment,
greedy detection of linearly dependent columns.

The OLS here reproduces statsmodels' ``OLS(y, X).fit(cov_type='cluster',
cov_kwds={'groups': g}, use_t=True)`` (same small-sample correction
G/(G-1) * (N-1)/(N-K), t distribution with G-1 degrees of freedom), but works
from the Gram matrix so that one design serves several outcomes and 700k rows
fit in well under a second. ``tests/unit/test_analysis_regression.py`` checks
the equality against statsmodels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse
from scipy import stats as _sps


def bh_adjust(p_values) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values; NaN entries stay NaN and are not counted."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    m = int(ok.sum())
    if m == 0:
        return out
    pv = p[ok]
    order = np.argsort(pv, kind="mergesort")
    ranked = pv[order] * m / np.arange(1, m + 1)
    adj = np.minimum.accumulate(ranked[::-1])[::-1]
    adj = np.clip(adj, 0.0, 1.0)
    res = np.empty(m)
    res[order] = adj
    out[ok] = res
    return out


def dependent_columns(gram: np.ndarray, order: list[int] | None = None, tol: float = 1e-8):
    """Greedy rank detection on a Gram matrix X'X (a pivoted Cholesky in a fixed order).

    Columns are visited in ``order``; a column is kept when its residual sum of
    squares after projection on the kept ones is more than ``tol`` times its own
    sum of squares. Returns ``(kept, dependent)`` where ``dependent`` maps a column
    index to ``{kept_index: weight}``, the linear combination that reproduces it.
    """
    k = gram.shape[0]
    order = list(range(k)) if order is None else list(order)
    kept: list[int] = []
    dependent: dict[int, dict[int, float]] = {}
    for j in order:
        gjj = float(gram[j, j])
        if gjj <= 0.0:
            dependent[j] = {}
            continue
        if not kept:
            kept.append(j)
            continue
        gss = gram[np.ix_(kept, kept)]
        gsj = gram[kept, j]
        b = np.linalg.solve(gss, gsj)
        resid = gjj - float(gsj @ b)
        if resid / gjj < tol:
            dependent[j] = {kept[i]: float(b[i]) for i in range(len(kept)) if abs(b[i]) > 1e-6}
        else:
            kept.append(j)
    return kept, dependent


def dense_codes(groups: np.ndarray) -> tuple[np.ndarray, int]:
    """Contiguous 0..G-1 codes for integer (or any hashable) group labels, and G."""
    g = np.asarray(groups)
    if g.dtype.kind in "iu" and len(g) and g.min() >= 0 and g.max() < 4 * len(g) + 1024:
        present = np.bincount(g) > 0
        remap = np.cumsum(present) - 1
        return remap[g], int(present.sum())
    codes, uniq = pd.factorize(g, sort=False)
    return codes, len(uniq)


def cluster_sums(values: np.ndarray, groups: np.ndarray, n_groups: int) -> np.ndarray:
    """Sum the rows of ``values`` (N x K) within each group code (0..n_groups-1)."""
    n = values.shape[0]
    ind = sparse.csr_matrix((np.ones(n), (groups, np.arange(n))), shape=(n_groups, n))
    return np.asarray(ind @ values)


@dataclass
class OLSFit:
    coef: np.ndarray
    std_err: np.ndarray
    std_err_clustered: np.ndarray
    p_value_clustered: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    n_obs: int
    n_clusters: int
    df_cluster: int


class FitError(RuntimeError):
    """A fit that cannot produce estimates (too few rows, singular design...)."""


def ols_clustered(
    X: np.ndarray,
    ys: dict[str, np.ndarray],
    groups: np.ndarray,
    alpha: float = 0.05,
    gram: np.ndarray | None = None,
) -> dict[str, OLSFit]:
    """OLS of each outcome in ``ys`` on the same full-rank design ``X``.

    ``groups`` are integer cluster codes (need not be contiguous). Classical and
    cluster-robust standard errors; p-values and CIs use the clustered ones with
    a t distribution on G-1 degrees of freedom.
    """
    n, k = X.shape
    if n <= k:
        raise FitError(f"too few observations ({n}) for {k} parameters")
    gcodes, n_groups = dense_codes(groups)
    if gram is None:
        gram = X.T @ X
    try:
        chol = np.linalg.cholesky(gram)
    except np.linalg.LinAlgError as exc:
        raise FitError(f"design matrix is singular: {exc}") from exc
    eye = np.eye(k)
    tmp = np.linalg.solve(chol, eye)
    inv = tmp.T @ tmp
    out: dict[str, OLSFit] = {}
    Xy = {name: X.T @ y for name, y in ys.items()}
    for name, y in ys.items():
        beta = inv @ Xy[name]
        resid = y - X @ beta
        ssr = float(resid @ resid)
        sigma2 = ssr / (n - k)
        se = np.sqrt(np.clip(np.diag(inv) * sigma2, 0.0, None))
        if n_groups >= 2:
            s = cluster_sums(X * resid[:, None], gcodes, n_groups)
            meat = s.T @ s
            cov_c = inv @ meat @ inv
            cov_c *= n_groups / (n_groups - 1.0) * ((n - 1.0) / (n - k))
            se_c = np.sqrt(np.clip(np.diag(cov_c), 0.0, None))
            df = n_groups - 1
            with np.errstate(divide="ignore", invalid="ignore"):
                t = beta / se_c
            p = 2.0 * _sps.t.sf(np.abs(t), df)
            q = _sps.t.ppf(1.0 - alpha / 2.0, df)
            lo, hi = beta - q * se_c, beta + q * se_c
        else:
            se_c = p = lo = hi = np.full(k, np.nan)
            df = 0
        out[name] = OLSFit(beta, se, se_c, p, lo, hi, n, n_groups, df)
    return out
