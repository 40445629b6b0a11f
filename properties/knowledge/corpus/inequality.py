"""Planted flaws against the inequality axioms: transfers, disparity, translation, equality,
and envy measures with a changed formula (mutants of SD, Gini, PUF and ME/MME)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import envy, pair_gaps, planted, puf_of

V = "violated"


def _max_weighted_gap(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    rows, cols = np.triu_indices(m, k=1)
    return float(np.max(similarity[rows, cols] * pair_gaps(effectiveness)[rows, cols]))


def _third_moment(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    return float(np.mean((s - s.mean()) ** 3)) * 8.0


def _gap_times_one_minus_gap(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    gaps = pair_gaps(effectiveness)
    return puf_of(effectiveness, similarity * (1.0 - gaps))


def _half_minus_sd(effectiveness: NDArray[np.float64]) -> float:
    return 0.5 - float(np.std(effectiveness))


def _sd_plus_low_mean_penalty(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    return (float(np.std(s)) + 0.1 * (1.0 - s.mean())) / 1.1


def _relative_puf(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    scale = s[:, None] + s[None, :] + 0.1
    return puf_of(s, similarity / scale * 0.1)


def _puf_plus_constant(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return (puf_of(effectiveness, similarity) + 0.01) / 1.01


def _absolute_envy(utility: NDArray[np.float64]) -> float:
    utility = np.asarray(utility)
    diff = np.abs(utility - np.diag(utility)[:, None])
    m = len(utility)
    return float(diff.sum() / (m * (m - 1)))


def _envy_of_own_list(utility: NDArray[np.float64]) -> float:
    utility = np.asarray(utility)
    m = len(utility)
    return float(np.maximum(np.diag(utility)[None, :] - utility, 0.0).sum() / (m * (m - 1)))


def _mean_envy_squared(utility: NDArray[np.float64]) -> float:
    m = len(utility)
    return float(np.sqrt((envy(utility) ** 2).sum() / (m * (m - 1))))


def _gini_by_max(effectiveness: NDArray[np.float64]) -> float:
    x = np.sort(np.asarray(effectiveness, dtype=np.float64))
    m = len(x)
    if x.max() == 0:
        return float("nan")
    return float((2.0 * np.arange(1, m + 1) - m - 1) @ x / (m * m * x.max()))


FLAWS = [
    planted(
        _max_weighted_gap,
        family="inequality",
        expected={"pigou-dalton": V},
        flaw="max over pairs of sim·|gap| (3-user transfer counterexample)",
    ),
    planted(
        _third_moment,
        family="inequality",
        expected={"pigou-dalton": V, "range": V},
        flaw="8 × the third central moment of S (signed skew)",
    ),
    planted(
        _gap_times_one_minus_gap,
        family="inequality",
        expected={"disparity-monotone": V},
        flaw="PUF with gap·(1 − gap): large gaps count less (only large gaps show it)",
    ),
    planted(
        _half_minus_sd,
        family="inequality",
        expected={"disparity-monotone": V, "pigou-dalton": V, "zero-at-equality": V},
        flaw="0.5 − SD: rewards disparity",
    ),
    planted(
        _sd_plus_low_mean_penalty,
        family="inequality",
        expected={"zero-at-equality": V},
        flaw="(SD + 0.1·(1 − mean S))/1.1: penalises a low mean, so equality is not fairest",
    ),
    planted(
        _relative_puf,
        family="inequality",
        expected={"translation-invariance": V},
        flaw="PUF of relative gaps |S(u) − S(v)|/(S(u) + S(v) + 0.1)",
    ),
    planted(
        _puf_plus_constant,
        family="inequality",
        expected={"zero-at-equality": V, "similarity-zero": V},
        flaw="(PUF + 0.01)/1.01: a floor added to every value",
    ),
    planted(
        _absolute_envy,
        family="inequality",
        expected={"zero-at-equality": V},
        flaw="ME with |φ_u(L_v) − φ_u(L_u)| instead of envy (the max with 0 dropped)",
    ),
    planted(
        _envy_of_own_list,
        family="inequality",
        expected={"disparity-monotone": V},
        flaw="ME with the difference reversed: φ_u(L_u) − φ_u(L_v) (the wrong sign)",
    ),
    planted(
        _mean_envy_squared,
        family="inequality",
        expected={"replication-invariance": V},
        flaw="root mean squared envy over ordered pairs",
    ),
    planted(
        _gini_by_max,
        family="inequality",
        expected={"pigou-dalton": V},
        flaw="Gini normalised by m·max S instead of Σ S",
    ),
]
