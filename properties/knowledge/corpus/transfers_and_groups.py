"""Planted flaws against the literature's axioms: a transfer that leaves the value unchanged,
transfers that count more higher up, an index that is consistent but not decomposable or
neither, and a declared range that is wider than the values at some m."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import planted

V = "violated"


def _half_range(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(s.max() - s.min()) / 2.0


def _deviation_from_median(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.mean(np.abs(s - np.median(s))))


def _sd_on_a_grid(effectiveness: NDArray[np.float64]) -> float:
    return float(np.floor(np.std(effectiveness) * 100.0)) / 100.0


def _ge_of_order(effectiveness: NDArray[np.float64], alpha: float) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    mu = s.mean()
    if mu == 0:
        return float("nan")
    return float(np.mean((s / mu) ** alpha - 1.0) / (alpha * (alpha - 1.0)))


def _generalized_entropy_three(effectiveness: NDArray[np.float64]) -> float:
    return _ge_of_order(effectiveness, 3.0)


def _generalized_entropy_two_and_a_half(effectiveness: NDArray[np.float64]) -> float:
    return _ge_of_order(effectiveness, 2.5)


def _mean_quartic_deviation(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.mean((s - s.mean()) ** 4)) * 16.0


def _root_theil(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    mu = s.mean()
    if mu == 0:
        return float("nan")
    x = s / mu
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(x > 0, x * np.log(x), 0.0)
    return float(np.sqrt(max(np.mean(terms), 0.0)))


def _variance_squashed(effectiveness: NDArray[np.float64]) -> float:
    v = float(np.var(effectiveness))
    return v / (v + 0.05)


def _variance_squared(effectiveness: NDArray[np.float64]) -> float:
    return 16.0 * float(np.var(effectiveness)) ** 2


def _half_mean_pair_gap(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    m = len(s)
    return float(np.abs(s[:, None] - s[None, :]).sum() / (2 * m * (m - 1)))


def _deviation_from_the_midrange(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.mean(np.abs(s - 0.5 * (s.max() + s.min()))))


def _max_min_times_nine_tenths(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float("nan") if s.max() == 0 else 0.9 * (1.0 - s.min() / s.max())


def _max_min_shrunk_by_m(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    m = len(s)
    return float("nan") if s.max() == 0 else (1.0 - s.min() / s.max()) * m / (m + 1)


def _lipschitz_share_over_all_ordered_pairs(
    effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]
) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    m = len(s)
    violating = np.abs(s[:, None] - s[None, :]) > (1.0 - np.asarray(similarity))
    return float(violating.sum() / (m * m))


FLAWS = [
    planted(
        _half_range,
        family="axioms",
        expected={"strict-transfer": V},
        flaw="half the range of S: a transfer between users other than the extremes moves nothing",
    ),
    planted(
        _deviation_from_median,
        family="axioms",
        expected={"strict-transfer": V},
        flaw="mean absolute deviation from the median: transfers on one side of it move nothing",
    ),
    planted(
        _sd_on_a_grid,
        family="axioms",
        expected={"strict-transfer": V, "continuity": V},
        flaw="SD rounded down to a 0.01 grid: small transfers move nothing",
    ),
    planted(
        _generalized_entropy_three,
        family="axioms",
        range=(0.0, float("inf")),
        expected={"transfer-sensitivity": V},
        flaw="GE(3): transfers count more higher up (α > 2)",
    ),
    planted(
        _generalized_entropy_two_and_a_half,
        family="axioms",
        range=(0.0, float("inf")),
        expected={"transfer-sensitivity": V},
        flaw="GE(2.5): transfers count more higher up (α > 2)",
    ),
    planted(
        _mean_quartic_deviation,
        family="axioms",
        expected={"transfer-sensitivity": V},
        flaw="16 × the mean fourth power of the deviations: φ''' > 0",
    ),
    planted(
        _root_theil,
        family="axioms",
        range=(0.0, float("inf")),
        expected={"subgroup-decomposability": V},
        flaw="√Theil: consistent by subgroups but not additive",
    ),
    planted(
        _variance_squashed,
        family="axioms",
        expected={"subgroup-decomposability": V},
        flaw="Var/(Var + 0.05): consistent by subgroups but not additive",
    ),
    planted(
        _variance_squared,
        family="axioms",
        expected={"subgroup-decomposability": V},
        flaw="16·Var²: consistent by subgroups but not additive",
    ),
    planted(
        _half_mean_pair_gap,
        family="axioms",
        expected={"subgroup-consistency": V},
        flaw="half the mean gap over pairs: gaps across overlapping groups move with a group's spread",
    ),
    planted(
        _deviation_from_the_midrange,
        family="axioms",
        expected={"subgroup-consistency": V},
        flaw="mean absolute deviation from the mid-range (max + min)/2",
    ),
    planted(
        _max_min_times_nine_tenths,
        family="axioms",
        expected={"attainable-range": V},
        flaw="0.9 × max-min: the declared end 1 is never reached",
    ),
    planted(
        _max_min_shrunk_by_m,
        family="axioms",
        expected={"attainable-range": V},
        flaw="max-min × m/(m + 1): the least fair value depends on m",
    ),
    planted(
        _lipschitz_share_over_all_ordered_pairs,
        family="axioms",
        expected={"attainable-range": V},
        flaw="Lipschitz violation share over all m² ordered pairs (the diagonal counted): at most 1 − 1/m",
    ),
]
