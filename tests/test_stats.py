"""Confidence intervals: known values, edge cases, pairing, win rates, doctests."""

from __future__ import annotations

import doctest

import pytest

import memlab.stats
from memlab.stats import paired_difference_interval, wilson_interval, win_rate_interval


def test_docstring_examples() -> None:
    result = doctest.testmod(memlab.stats)
    assert result.attempted > 0 and result.failed == 0


def test_wilson_known_value() -> None:
    assert wilson_interval(15, 20) == pytest.approx((0.531, 0.888), abs=1e-3)
    assert wilson_interval(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_wilson_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and 0.0 < high < 0.2
    low, high = wilson_interval(20, 20)
    assert high == 1.0 and 0.8 < low < 1.0
    # wider z → wider interval
    assert wilson_interval(15, 20, z=2.576)[0] < wilson_interval(15, 20)[0]


@pytest.mark.parametrize(("k", "n"), [(-1, 5), (6, 5), (1, -1)])
def test_wilson_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(k, n)


def test_paired_interval_contains_zero_for_equal_systems() -> None:
    same = [True, False, True, True, False, True, False, True, True, True]
    low, high = paired_difference_interval(same, same)
    assert low < 0 < high
    # different questions right, same accuracy: still no evidence of a difference
    low, high = paired_difference_interval(same, same[::-1])
    assert low < 0 < high


def test_paired_interval_matches_published_example() -> None:
    # Paired 2x2 table [[59, 6], [16, 80]] (Cavo et al. 2012, as used by the R package
    # contingencytables for Newcombe's square-and-add interval): −0.0621 (−0.1186, −0.0046).
    a = [True] * 65 + [False] * 96
    b = [True] * 59 + [False] * 6 + [True] * 16 + [False] * 80
    low, high = paired_difference_interval(a, b, z=1.959964)
    assert (low, high) == pytest.approx((-0.1186, -0.0046), abs=1e-4)


def test_paired_interval_clear_winner_excludes_zero() -> None:
    a = [True] * 18 + [False] * 2
    b = [False] * 12 + [True] * 8
    low, high = paired_difference_interval(a, b)
    assert 0 < low < 0.5 < high <= 1.0
    assert paired_difference_interval(b, a) == pytest.approx((-high, -low))


def test_paired_interval_edges() -> None:
    assert paired_difference_interval([], []) == (-1.0, 1.0)
    low, high = paired_difference_interval([True] * 5, [True] * 5)
    assert low < 0 < high and -1 <= low and high <= 1
    low, high = paired_difference_interval([True] * 30, [False] * 30)
    assert 0.8 < low < high == 1.0
    with pytest.raises(ValueError, match="same questions"):
        paired_difference_interval([True], [True, False])


def test_win_rate_counts_ties_as_half() -> None:
    assert win_rate_interval(3, 4, 3) == wilson_interval(5, 10)
    assert win_rate_interval(0, 0, 0) == (0.0, 1.0)
    low, high = win_rate_interval(10, 0, 10)
    assert low < 0.5 < high
    low, high = win_rate_interval(18, 1, 1)
    assert low > 0.5
    with pytest.raises(ValueError):
        win_rate_interval(-1, 0, 0)
