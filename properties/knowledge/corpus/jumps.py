"""Planted jumps: a value that switches at a similarity threshold, at a branch on the mean
effectiveness, and at the best-off user's identity (flaws of ``continuity``, and so of
``lipschitz-continuity``)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import planted, puf_of

V = "violated"


def _puf_over_alike_pairs(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, similarity * (similarity > 0.618))


def _puf_or_sd_by_mean(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    return puf_of(s, similarity) if s.mean() >= 0.35 else float(np.std(s))


def _best_off_neighbour_gap(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    best = int(np.argmax(s))
    alike = np.array(similarity, dtype=np.float64)[best].copy()
    alike[best] = -np.inf
    return float(s[best] - s[int(np.argmax(alike))])


FLAWS = [
    planted(
        _puf_over_alike_pairs,
        family="jumps",
        expected={"continuity": V, "lipschitz-continuity": V},
        flaw="PUF over the pairs with sim > 0.618 only: a pair crossing the threshold jumps in or out",
    ),
    planted(
        _puf_or_sd_by_mean,
        family="jumps",
        expected={"continuity": V, "lipschitz-continuity": V},
        flaw="PUF when the mean effectiveness is at least 0.35, SD below: a branch on the mean",
    ),
    planted(
        _best_off_neighbour_gap,
        family="jumps",
        expected={"continuity": V, "lipschitz-continuity": V},
        flaw="the gap between the best-off user and its most similar user: the best-off user "
        "changes where two users tie at the top",
    ),
]
