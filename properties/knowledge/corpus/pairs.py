"""Planted flaws against the pair measures' axioms: pair measures that leak through strangers'
pairs or the mean, that are normalised by every pair or every place, that rise only weakly with
similarity, and that drop identical users' pairs."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import pair_gaps, puf_of, planted

V = "violated"


def _puf_with_a_floor_weight(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, 0.05 + 0.95 * np.asarray(similarity))


def _puf_per_mean(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    mu = float(np.mean(effectiveness))
    return float("nan") if mu == 0 else min(1.0, puf_of(effectiveness, similarity) / (2.0 * mu))


def _puf_over_every_place(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    return float(np.sum(np.asarray(similarity) * pair_gaps(effectiveness)) / (m * m))


def _puf_over_similar_pairs_corrected(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    sim = np.asarray(similarity, dtype=np.float64)
    rows, cols = np.triu_indices(len(effectiveness), k=1)
    similar = sim[rows, cols] > 0
    if not similar.any():
        return 0.0
    mean = float(np.mean((sim * pair_gaps(effectiveness))[rows, cols][similar]))
    return mean * (1.0 - 1.0 / len(effectiveness))


def _puf_above_a_threshold(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, (np.asarray(similarity) >= 0.5).astype(np.float64))


def _puf_on_a_similarity_grid(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    return puf_of(effectiveness, np.floor(np.asarray(similarity) * 10.0) / 10.0)


def _puf_without_identical_pairs(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    sim = np.asarray(similarity, dtype=np.float64)
    return puf_of(effectiveness, np.where(sim < 1.0, sim, 0.0))


FLAWS = [
    planted(
        _puf_with_a_floor_weight,
        family="pair-axioms",
        expected={"dissimilar-independence": V, "similar-treated-alike": V},
        flaw="PUF with weight 0.05 + 0.95·sim: strangers' pairs still count",
    ),
    planted(
        _puf_per_mean,
        family="pair-axioms",
        expected={"dissimilar-independence": V},
        flaw="PUF divided by twice the mean effectiveness (capped at 1): a stranger moves the mean",
    ),
    planted(
        _puf_over_every_place,
        family="pair-axioms",
        expected={"dissimilar-replication": V},
        flaw="Σ_{u,v} sim·|gap| over m² places: strangers' copies add places but no weight",
    ),
    planted(
        _puf_over_similar_pairs_corrected,
        family="pair-axioms",
        expected={"dissimilar-replication": V},
        flaw="mean sim·|gap| over the pairs with sim > 0, times (1 − 1/m): a size correction",
    ),
    planted(
        _puf_above_a_threshold,
        family="pair-axioms",
        expected={"strict-similarity-monotone": V},
        flaw="PUF with weight 1{sim ≥ ½}: raises below or above ½ move nothing (weakly monotone)",
    ),
    planted(
        _puf_on_a_similarity_grid,
        family="pair-axioms",
        expected={"strict-similarity-monotone": V},
        flaw="PUF with similarity rounded down to a 0.1 grid: raises inside a step move nothing",
    ),
    planted(
        _puf_without_identical_pairs,
        family="pair-axioms",
        expected={"similar-treated-alike": V, "strict-similarity-monotone": V},
        flaw="PUF over the pairs with sim < 1 (identical users dropped as duplicates)",
    ),
]
