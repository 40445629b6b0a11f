"""Planted flaws in a measure's normalisation: range, replication and scale (mutants of PUF, SD,
Gini and MME: change the normaliser, add an epsilon, compute in float32)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import envy, pair_gaps, planted, puf_of, upper_pairs

V = "violated"


def _puf_unnormalised(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    rows, cols = upper_pairs(len(effectiveness))
    return float(np.sum(similarity[rows, cols] * pair_gaps(effectiveness)[rows, cols]))


def _puf_over_m(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    rows, cols = upper_pairs(len(effectiveness))
    return float(np.sum(similarity[rows, cols] * pair_gaps(effectiveness)[rows, cols]) / len(effectiveness))


def _sd_times_three(effectiveness: NDArray[np.float64]) -> float:
    return 3.0 * float(np.std(effectiveness))


def _puf_minus_epsilon(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, similarity) - 1e-3


def _signed_puf(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    rows, cols = upper_pairs(len(s))
    m = len(s)
    return float(2.0 * np.sum(similarity[rows, cols] * (s[rows] - s[cols])) / (m * (m - 1)))


def _sd_ddof1(effectiveness: NDArray[np.float64]) -> float:
    return float(np.std(effectiveness, ddof=1))


def _gini_m_minus_one(effectiveness: NDArray[np.float64]) -> float:
    x = np.sort(np.asarray(effectiveness, dtype=np.float64))
    m, total = len(x), x.sum()
    if total == 0:
        return float("nan")
    return float((2.0 * np.arange(1, m + 1) - m - 1) @ x / ((m - 1) * total))


def _sum_max_envy(utility: NDArray[np.float64]) -> float:
    return float(envy(utility).max(axis=1).sum())


def _gini_epsilon(effectiveness: NDArray[np.float64]) -> float:
    x = np.sort(np.asarray(effectiveness, dtype=np.float64))
    m = len(x)
    return float((2.0 * np.arange(1, m + 1) - m - 1) @ x / (m * x.sum() + 0.01))


def _gini_float32(effectiveness: NDArray[np.float64]) -> float:
    x = np.sort(np.asarray(effectiveness, dtype=np.float32))
    m, total = len(x), x.sum(dtype=np.float32)
    if total == 0:
        return float("nan")
    weights = (2.0 * np.arange(1, m + 1) - m - 1).astype(np.float32)
    return float(np.float32(weights @ x) / np.float32(m * total))


def _sd_ddof_by_size(effectiveness: NDArray[np.float64]) -> float:
    return float(np.std(effectiveness, ddof=1 if len(effectiveness) >= 5 else 0))


FLAWS = [
    planted(
        _puf_unnormalised,
        family="normalisation",
        expected={"range": V},
        flaw="PUF without the 2/(m(m−1)) factor: above 1 once m ≥ 3",
    ),
    planted(
        _puf_over_m,
        family="normalisation",
        expected={"range": V},
        flaw="PUF's pair sum divided by m instead of m(m−1)/2: above 1 only for m ≥ 5",
    ),
    planted(
        _sd_times_three,
        family="normalisation",
        expected={"range": V},
        flaw="3·SD declared in [0, 1]: leaves it only for large gaps (SD > 1/3)",
    ),
    planted(
        _puf_minus_epsilon,
        family="normalisation",
        expected={"range": V, "zero-at-equality": V},
        flaw="PUF − 0.001 (a baseline subtracted): negative near equality",
    ),
    planted(
        _signed_puf,
        family="normalisation",
        expected={"range": V, "anonymity": V},
        flaw="PUF with the absolute value dropped (signed gaps)",
    ),
    planted(
        _sd_ddof1,
        family="normalisation",
        expected={"replication-invariance": V},
        flaw="SD with ddof=1 (sample SD): depends on m",
    ),
    planted(
        _gini_m_minus_one,
        family="normalisation",
        expected={"replication-invariance": V},
        flaw="Gini normalised by m − 1 instead of m (the small-sample Gini)",
    ),
    planted(
        _sum_max_envy,
        family="normalisation",
        expected={"replication-invariance": V, "range": V},
        flaw="MME summed over users instead of averaged",
    ),
    planted(
        _gini_epsilon,
        family="normalisation",
        expected={"scale-invariance": V},
        flaw="Gini with 0.01 added to the denominator (to avoid 0/0): no longer relative",
    ),
    planted(
        _gini_float32,
        family="normalisation",
        expected={"scale-invariance": V},
        flaw="Gini computed in float32: rescaling changes the rounding",
    ),
    planted(
        _sd_ddof_by_size,
        family="normalisation",
        expected={"replication-invariance": V},
        flaw="SD with ddof=1 only from m = 5 on (a small-sample switch)",
    ),
]
