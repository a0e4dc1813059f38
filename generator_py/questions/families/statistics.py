"""The statistics the data-analysis families ask about, computed exactly where arithmetic can be: means,
variances, quartiles (linear interpolation between the sorted values, numpy's default) and z-scores on exact
rationals (`Fraction` of the stored floats); the p values of Welch's t-test and of the Shapiro-Wilk test by scipy
(the t distribution's tail, scipy.stats.shapiro), from the exact statistics.

A yes/no answer decided by a p value is asked only when the p value is not within P_MARGIN (relative) of the
significance level, and a p value printed to two significant digits only when it is not within P_MARGIN of a
rounding tie: two correct computations of the same test (the independent cross-check calls scipy's own test
functions) cannot then answer differently.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Optional, Sequence

import numpy as np

ALPHA = Fraction(5, 100)  # the significance level every test question states
P_MARGIN = 1e-6  # relative distance a p value keeps from the level and from a rounding tie
SMALLEST_P = 1e-4  # a p value printed in a long-form answer is at least this (plain decimals, no exponent)


def mean(xs: Sequence[Fraction]) -> Fraction:
    return sum(xs, Fraction(0)) / len(xs)


def sum_of_squares(xs: Sequence[Fraction]) -> Fraction:
    """The sum of squared deviations from the mean."""
    m = mean(xs)
    return sum(((x - m) ** 2 for x in xs), Fraction(0))


def sample_variance(xs: Sequence[Fraction]) -> Fraction:
    return sum_of_squares(xs) / (len(xs) - 1)


def quantile(xs: Sequence[Fraction], p: Fraction) -> Fraction:
    """The p-quantile by linear interpolation between the sorted values (position (n - 1) p, 0-based)."""
    s = sorted(xs)
    h = (len(s) - 1) * p
    lo = math.floor(h)
    if lo + 1 >= len(s):
        return s[-1]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def quartiles(xs: Sequence[Fraction]) -> tuple[Fraction, Fraction]:
    return quantile(xs, Fraction(1, 4)), quantile(xs, Fraction(3, 4))


def squared_z(x: Fraction, xs: Sequence[Fraction]) -> Fraction:
    """The square of x's z-score among xs (distance from their mean in sample standard deviations, n - 1)."""
    return (x - mean(xs)) ** 2 / sample_variance(xs)


def welch_p_greater(a: Sequence[Fraction], b: Sequence[Fraction]) -> Optional[float]:
    """The one-sided p value of Welch's t-test that a's mean is higher than b's: the t statistic and the
    Welch-Satterthwaite degrees of freedom from exact moments, the upper tail of Student's t by scipy.
    None when either sample has fewer than two values or both have no spread."""
    from scipy.special import stdtr

    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = sample_variance(a) / len(a), sample_variance(b) / len(b)
    if va + vb == 0:
        return None
    t = float(mean(a) - mean(b)) / math.sqrt(float(va + vb))
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return float(stdtr(float(df), -t))  # P(T > t) = P(T < -t)


def welch_p_greater_float(a: Sequence[float], b: Sequence[float]) -> Optional[float]:
    """welch_p_greater in floats (numpy moments): what a draw scans candidate pairs with before the exact
    computation decides the chosen one."""
    from scipy.special import stdtr

    if len(a) < 2 or len(b) < 2:
        return None
    x, y = np.asarray(a, float), np.asarray(b, float)
    va, vb = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    if va + vb == 0:
        return None
    df = (va + vb) ** 2 / (va ** 2 / (len(x) - 1) + vb ** 2 / (len(y) - 1))
    return float(stdtr(df, -(x.mean() - y.mean()) / np.sqrt(va + vb)))


def shapiro_p(xs: Sequence[Fraction]) -> Optional[float]:
    """The Shapiro-Wilk test's p value (scipy), None for fewer than three values or no spread."""
    from scipy.stats import shapiro

    if len(xs) < 3 or len(set(xs)) < 2:
        return None
    return float(shapiro([float(x) for x in xs]).pvalue)


def significant(p: Optional[float], alpha: Fraction = ALPHA) -> Optional[bool]:
    """p below the level; None when p is missing or too close to the level to say."""
    if p is None or not math.isfinite(p) or abs(p - float(alpha)) <= P_MARGIN * float(alpha):
        return None
    return p < float(alpha)


def significant_digits(p: Optional[float], digits: int, smallest: float = 0.0) -> Optional[str]:
    """p rounded to `digits` significant digits, as plain decimals (0.012, 0.50); None below `smallest`, at 1
    or above, or within P_MARGIN of a rounding tie."""
    if p is None or not math.isfinite(p) or not (max(smallest, 1e-300) <= p < 1):
        return None
    e = math.floor(math.log10(p))
    scaled = p / 10.0 ** (e - digits + 1)  # in [10^(digits-1), 10^digits)
    if abs(scaled - math.floor(scaled) - 0.5) <= P_MARGIN * scaled:
        return None
    q = Decimal(repr(p)).quantize(Decimal(1).scaleb(e - digits + 1), rounding=ROUND_HALF_UP)
    if q >= Decimal(1).scaleb(e + 1):  # rounded up into the next decade: 0.0996 -> 0.10
        q = q.quantize(Decimal(1).scaleb(e - digits + 2))
    return format(q, "f")


def two_significant(p: Optional[float]) -> Optional[str]:
    """p to two significant digits, as a long-form answer prints it (at least SMALLEST_P)."""
    return significant_digits(p, 2, SMALLEST_P)


_CLOSE, _CLOSE_FLOOR = Fraction(1, 10 ** 9), Fraction(1, 10 ** 6)


def close(x: Fraction, y: Fraction) -> bool:
    """Two exact values too close for float arithmetic to order them the same way (relative 1e-9)."""
    return abs(x - y) <= _CLOSE * max(abs(x), abs(y), _CLOSE_FLOOR)


def near(x: Fraction, bound: Fraction, scale: Fraction) -> bool:
    """Whether x is within P_MARGIN * scale of bound (a criterion too close to call with floats)."""
    return abs(x - bound) <= Fraction(P_MARGIN) * abs(scale)
