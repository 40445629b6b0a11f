"""Planted discontinuities: thresholds at values that are not round numbers, quantisation,
tie handling, and steep but continuous shapes (flaws of the ``lipschitz-continuity`` property)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import pair_gaps, planted, puf_of

V = "violated"


def _puf_similarity_cutoff(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, np.where(similarity >= 0.4137, similarity, 0.0))


def _puf_gap_tolerance(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    gaps = pair_gaps(effectiveness)
    return puf_of(effectiveness, similarity * (gaps >= 0.263))


def _puf_gap_outliers(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    gaps = pair_gaps(effectiveness)
    return puf_of(effectiveness, similarity * (gaps <= 0.7))


def _puf_tie_bonus(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    tied = len(np.unique(s)) < len(s)
    return puf_of(s, similarity) * (0.5 if tied else 1.0)


def _sd_noise_floor(effectiveness: NDArray[np.float64]) -> float:
    value = float(np.std(effectiveness))
    return value if value > 0.1234 else 0.0


def _puf_log_scaled(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return float(np.log1p(1000.0 * puf_of(effectiveness, similarity)) / np.log(1001.0))


def _puf_rounded_effectiveness(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(np.round(np.asarray(effectiveness) * 10.0) / 10.0, similarity)


def _puf_mean_similarity_cutoff(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    rows, cols = np.triu_indices(m, k=1)
    cut = similarity[rows, cols].mean()
    return puf_of(effectiveness, np.where(similarity > cut, similarity, 0.0))


def _sd_of_square_roots(effectiveness: NDArray[np.float64]) -> float:
    return float(np.std(np.sqrt(effectiveness)))


def _headcount_below_half_mean(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    return float(np.mean(s < 0.5 * s.mean()))


FLAWS = [
    planted(
        _puf_similarity_cutoff,
        family="thresholds",
        expected={"lipschitz-continuity": V},
        flaw="PUF over pairs with sim ≥ 0.4137 only (a cut-off that is not a round number)",
    ),
    planted(
        _puf_gap_tolerance,
        family="thresholds",
        expected={"lipschitz-continuity": V},
        flaw="PUF ignoring gaps below 0.263 (a tolerance)",
    ),
    planted(
        _puf_gap_outliers,
        family="thresholds",
        expected={"lipschitz-continuity": V, "disparity-monotone": V},
        flaw="PUF ignoring gaps above 0.7 as outliers: only large gaps show it",
    ),
    planted(
        _puf_tie_bonus,
        family="thresholds",
        expected={"lipschitz-continuity": V},
        flaw="PUF halved when two users tie (only on ties)",
    ),
    planted(
        _sd_noise_floor,
        family="thresholds",
        expected={"lipschitz-continuity": V},
        flaw="SD reported as 0 below 0.1234 (a noise floor)",
    ),
    planted(
        _puf_log_scaled,
        family="thresholds",
        expected={"lipschitz-continuity": V},
        flaw="log(1 + 1000·PUF)/log(1001): continuous but far too steep near 0",
    ),
    planted(
        _puf_rounded_effectiveness,
        family="thresholds",
        expected={"lipschitz-continuity": V},
        flaw="PUF of effectiveness rounded to one decimal",
    ),
    planted(
        _puf_mean_similarity_cutoff,
        family="thresholds",
        expected={"lipschitz-continuity": V, "similarity-monotone": V},
        flaw="PUF over pairs more similar than the mean similarity (UF's kind of threshold)",
    ),
    planted(
        _sd_of_square_roots,
        family="thresholds",
        expected={"lipschitz-continuity": V, "translation-invariance": V},
        flaw="SD of √S: steep near S = 0 and not shift-invariant",
    ),
    planted(
        _headcount_below_half_mean,
        family="thresholds",
        expected={"lipschitz-continuity": V, "pigou-dalton": V},
        flaw="share of users below half the mean (a poverty headcount)",
    ),
]
