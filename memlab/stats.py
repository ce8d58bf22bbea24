"""Confidence intervals for small evaluation sets: accuracy, paired differences, win rates.

With 20–30 questions per run, a single accuracy number hides a ±20-point uncertainty; the
notebooks print these intervals next to every score so students don't over-read them.
All functions are pure and deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import sqrt

__all__ = ["paired_difference_interval", "wilson_interval", "win_rate_interval"]


def wilson_interval(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion k/n; (0.0, 1.0) when n == 0.

    Unlike the textbook p ± z·SE interval it stays inside [0, 1] and is not zero-width
    at k = 0 or k = n, which matters for the tiny question sets of a lab. `k` may be
    fractional (win rates count ties as half a win).

    >>> lo, hi = wilson_interval(15, 20)
    >>> round(lo, 3), round(hi, 3)
    (0.531, 0.888)
    >>> wilson_interval(0, 0)
    (0.0, 1.0)
    >>> wilson_interval(0, 10)[0], round(wilson_interval(0, 10)[1], 3)
    (0.0, 0.278)
    """
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"wilson_interval: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # Clamp exact edges: floating point gives 1e-17 instead of 0 at k = 0.
    low = 0.0 if k == 0 else max(0.0, centre - half)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


def paired_difference_interval(
    a: Sequence[bool], b: Sequence[bool], z: float = 1.96
) -> tuple[float, float]:
    """Interval for accuracy(a) − accuracy(b) on the SAME questions (Newcombe 1998, method 10).

    Method 10 ("square-and-add" of the two Wilson intervals, corrected for the correlation
    between paired answers) is used rather than a bootstrap because it is closed-form,
    deterministic and well-behaved for n ≈ 20. It needs the pairing: systems scored on the
    same questions are correlated, and ignoring that makes the interval too wide.
    Newcombe, Stat. Med. 17:2635–2650 (1998); the φ correction follows the paper.

    >>> same = [True, False, True, True, False]
    >>> lo, hi = paired_difference_interval(same, same)
    >>> lo < 0 < hi
    True
    >>> lo, hi = paired_difference_interval([True] * 18 + [False] * 2, [False] * 12 + [True] * 8)
    >>> round(lo, 3), round(hi, 3)
    (0.152, 0.721)
    >>> paired_difference_interval([], [])
    (-1.0, 1.0)
    """
    if len(a) != len(b):
        raise ValueError(
            f"paired_difference_interval: a and b must score the same questions "
            f"(got {len(a)} and {len(b)} answers)"
        )
    n = len(a)
    if n == 0:
        return (-1.0, 1.0)
    both = sum(1 for x, y in zip(a, b, strict=True) if x and y)
    only_a = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    only_b = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    neither = n - both - only_a - only_b
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = wilson_interval(both + only_a, n, z)
    l2, u2 = wilson_interval(both + only_b, n, z)
    phi = _paired_phi(both, only_a, only_b, neither)
    d1, e1 = p1 - l1, u2 - p2  # distances used for the lower limit
    d2, e2 = u1 - p1, p2 - l2  # … and for the upper limit
    low = (p1 - p2) - sqrt(max(0.0, d1 * d1 - 2 * phi * d1 * e1 + e1 * e1))
    high = (p1 - p2) + sqrt(max(0.0, d2 * d2 - 2 * phi * d2 * e2 + e2 * e2))
    return (max(-1.0, low), min(1.0, high))


def _paired_phi(both: int, only_a: int, only_b: int, neither: int) -> float:
    """Newcombe's φ: the correlation of the paired outcomes, shrunk toward 0 by n/2."""
    n = both + only_a + only_b + neither
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    if margins == 0:
        return 0.0
    cross = both * neither - only_a * only_b
    if cross > n / 2:
        cross -= n / 2
    elif cross >= 0:
        cross = 0
    return cross / sqrt(margins)


def win_rate_interval(wins: int, ties: int, losses: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson interval for a pairwise win rate, counting each tie as half a win.

    The rate is (wins + ties / 2) / (wins + ties + losses); a tie splits the comparison
    evenly, which is how pairwise LLM-judge results are usually reported. Wilson's formula
    accepts the fractional count.

    >>> lo, hi = win_rate_interval(10, 0, 10)
    >>> lo < 0.5 < hi
    True
    >>> win_rate_interval(0, 0, 0)
    (0.0, 1.0)
    >>> win_rate_interval(3, 4, 3) == wilson_interval(5, 10)
    True
    """
    if min(wins, ties, losses) < 0:
        raise ValueError(f"win_rate_interval: counts must be >= 0, got {wins}, {ties}, {losses}")
    return wilson_interval(wins + ties / 2, wins + ties + losses, z)
