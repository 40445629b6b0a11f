"""Planted flaws in how similarity weighs the gaps: wrong field, inverted, clipped, ignored,
near similarity 0 or 1, and global instead of per pair."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import planted, puf_of

V = "violated"


def _puf_weighted_mean_gap(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    rows, cols = np.triu_indices(m, k=1)
    total = similarity[rows, cols].sum()
    return puf_of(effectiveness, similarity) * m * (m - 1) / 2.0 / total


def _puf_dissimilarity(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, 1.0 - similarity)


def _puf_mid_similarity(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, 4.0 * similarity * (1.0 - similarity))


def _mean_pair_gap(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, np.ones_like(similarity))


def _puf_effectiveness_weights(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    return puf_of(s, np.outer(s, s))


def _puf_plus_baseline_weight(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, (similarity + 0.1) / 1.1)


def _puf_tiny_similarity_default(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, np.where(similarity > 0.02, similarity, 0.5))


def _puf_duplicates_dropped(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, np.where(similarity > 0.97, 0.0, similarity))


def _sd_times_mean_similarity(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    rows, cols = np.triu_indices(m, k=1)
    return 2.0 * float(np.std(effectiveness)) * float(similarity[rows, cols].mean())


def _puf_sorted_effectiveness(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(np.sort(effectiveness), similarity)


def _mean_similarity(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    rows, cols = np.triu_indices(m, k=1)
    return float(similarity[rows, cols].mean())


def _puf_of_similarity_row_means(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    return puf_of((similarity.sum(axis=1) - np.diag(similarity)) / (m - 1), similarity)


def _sd_reading_similarity(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return float(np.std(effectiveness))


FLAWS = [
    planted(
        _puf_of_similarity_row_means,
        family="weighting",
        expected={"effectiveness-sensitive": V},
        flaw="PUF of each user's mean similarity instead of its effectiveness (the wrong field)",
    ),
    planted(
        _sd_reading_similarity,
        family="weighting",
        expected={"similarity-sensitive": V, "similarity-zero": V},
        flaw="SD of S, reading similarity and never using it",
    ),
    planted(
        _puf_weighted_mean_gap,
        family="weighting",
        expected={"similarity-monotone": V, "defined": V},
        flaw="Σ sim·gap / Σ sim (a similarity-weighted mean): NaN when nobody is similar",
    ),
    planted(
        _puf_dissimilarity,
        family="weighting",
        expected={"similarity-monotone": V, "similarity-zero": V},
        flaw="PUF weighted by 1 − sim (the wrong way round)",
    ),
    planted(
        _puf_mid_similarity,
        family="weighting",
        expected={"similarity-monotone": V},
        flaw="PUF weighted by 4·sim·(1 − sim): wrong only near similarity 1",
    ),
    planted(
        _mean_pair_gap,
        family="weighting",
        expected={"similarity-sensitive": V, "similarity-zero": V, "rearrangement": V},
        flaw="mean gap over all pairs: reads similarity and ignores it",
    ),
    planted(
        _puf_effectiveness_weights,
        family="weighting",
        expected={"similarity-sensitive": V, "similarity-zero": V},
        flaw="PUF weighted by S(u)·S(v) instead of sim(u, v) (the wrong field)",
    ),
    planted(
        _puf_plus_baseline_weight,
        family="weighting",
        expected={"similarity-zero": V},
        flaw="PUF weighted by (sim + 0.1)/1.1: dissimilar users still count",
    ),
    planted(
        _puf_tiny_similarity_default,
        family="weighting",
        expected={"similarity-zero": V, "similarity-monotone": V, "lipschitz-continuity": V},
        flaw="similarities ≤ 0.02 taken for missing and set to 0.5 (only near similarity 0)",
    ),
    planted(
        _puf_duplicates_dropped,
        family="weighting",
        expected={"similarity-monotone": V, "lipschitz-continuity": V},
        flaw="pairs with sim > 0.97 dropped as duplicate users (only near similarity 1)",
    ),
    planted(
        _sd_times_mean_similarity,
        family="weighting",
        expected={"rearrangement": V},
        flaw="2·SD × mean similarity: similarity only as a global scalar",
    ),
    planted(
        _puf_sorted_effectiveness,
        family="weighting",
        expected={"rearrangement": V, "anonymity": V},
        flaw="PUF of sorted effectiveness (users' identities lost before weighting)",
    ),
    planted(
        _mean_similarity,
        family="weighting",
        expected={"effectiveness-sensitive": V, "zero-at-equality": V},
        flaw="mean similarity: reads effectiveness and ignores it",
    ),
]
