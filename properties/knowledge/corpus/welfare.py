"""Planted flaws against the welfare axioms: indices that are not Lorenz-consistent, that rise
with equal additions, that rank outcomes and shortfalls differently, and envy measures that are
not fairest at envy-freeness or blind to a small envy."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import envy, planted

V = "violated"


def _gini_of(values: NDArray[np.float64]) -> float:
    x = np.sort(np.asarray(values, dtype=np.float64))
    m = len(x)
    if x.sum() == 0:
        return float("nan")
    return float(np.sum((2 * np.arange(1, m + 1) - m - 1) * x) / (m * x.sum()))


def _absolute_gini(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.mean(s)) * _gini_of(s) if s.sum() > 0 else 0.0


def _cv_of_the_top_half(effectiveness: NDArray[np.float64]) -> float:
    s = np.sort(np.asarray(effectiveness, dtype=np.float64))
    top = s[len(s) // 2 :]
    return float(np.std(top) / top.mean()) if top.mean() > 0 else 0.0


def _gini_of_shortfalls(effectiveness: NDArray[np.float64]) -> float:
    return _gini_of(1.0 - np.asarray(effectiveness, dtype=np.float64))


def _cv_of_shortfalls(effectiveness: NDArray[np.float64]) -> float:
    d = 1.0 - np.asarray(effectiveness, dtype=np.float64)
    return float(np.std(d) / d.mean()) if d.mean() > 0 else float("nan")


def _sd_weighted_by_the_mean(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.std(s)) * (0.5 + float(s.mean()))


def _upper_semideviation(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return float(np.sqrt(np.mean(np.maximum(s - s.mean(), 0.0) ** 2)))


def _mean_utility_gap(utility: NDArray[np.float64]) -> float:
    u = np.asarray(utility, dtype=np.float64)
    m = len(u)
    return float(np.abs(u - np.diag(u)[:, None]).sum() / (m * (m - 1)))


def _envious_share_above_a_tenth(utility: NDArray[np.float64]) -> float:
    return float(np.mean(envy(utility).max(axis=1) > 0.1))


FLAWS = [
    planted(
        _absolute_gini,
        family="welfare",
        expected={"lorenz-consistency": V},
        flaw="the absolute Gini μ·G (half the mean difference): S scaled up keeps its Lorenz curve and raises it",
    ),
    planted(
        _cv_of_the_top_half,
        family="welfare",
        range=(0.0, float("inf")),
        expected={"lorenz-consistency": V},
        flaw="the CV of the better-off half: a transfer from its poorest to the worse-off half widens it",
    ),
    planted(
        _gini_of_shortfalls,
        family="welfare",
        expected={"equal-additions": V, "mirror-consistency": V},
        flaw="the Gini of the shortfalls 1 − S: equal additions make the shortfalls relatively more unequal",
    ),
    planted(
        _cv_of_shortfalls,
        family="welfare",
        range=(0.0, float("inf")),
        expected={"equal-additions": V},
        flaw="the CV of the shortfalls 1 − S: it rises as everyone gains",
    ),
    planted(
        _sd_weighted_by_the_mean,
        family="welfare",
        expected={"mirror-consistency": V},
        flaw="SD × (½ + μ): the same spread weighs more at a high mean, less in the shortfalls",
    ),
    planted(
        _upper_semideviation,
        family="welfare",
        expected={"mirror-consistency": V},
        flaw="the upper semideviation: the shortfalls read the lower one",
    ),
    planted(
        _mean_utility_gap,
        family="welfare",
        expected={"envy-free-fairest": V},
        flaw="the mean |φ_u(L_v) − φ_u(L_u)|: preferring one's own list counts as envy",
    ),
    planted(
        _envious_share_above_a_tenth,
        family="welfare",
        expected={"envy-free-fairest": V},
        flaw="the share of users envying by more than 0.1: a smaller envy reads as envy-free",
    ),
]
