"""Planted flaws that show only on special inputs: NaN or an exception on a rare population,
a few users treated differently (by index, for m ≥ 5, for m ≥ 9), float32 arithmetic."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import planted, puf_of

V = "violated"


def _puf_nan_at_seven_users(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    if len(effectiveness) == 7:  # a reshape to (7, -1) gone wrong
        return float("nan")
    return puf_of(effectiveness, similarity)


def _puf_nan_on_identical_tied_users(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    tied = (s[:, None] == s[None, :]) & (similarity >= 1.0)
    np.fill_diagonal(tied, False)
    return float("nan") if tied.any() else puf_of(s, similarity)


def _puf_raises_on_perfect_users(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    if np.any(np.asarray(effectiveness) == 1.0):
        raise ValueError("log-odds of a perfect user")
    return puf_of(effectiveness, similarity)


def _puf_nan_at_half_similarity(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    centred = 2.0 * similarity - 1.0  # to [-1, 1] and back; 0/0 at sim = 0.5
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = (centred / centred) * similarity
    return puf_of(effectiveness, weights)


def _puf_cold_start_filter(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    keep = s >= 0.05
    if keep.sum() < 2:
        return float("nan")
    return puf_of(s[keep], similarity[np.ix_(keep, keep)])


def _puf_index_weighted(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    weight = 1.0 - np.arange(m) / (2.0 * m)
    return puf_of(effectiveness, similarity * np.sqrt(np.outer(weight, weight)))


def _gap_to_first_user(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    return float(np.mean(similarity[0, 1:] * np.abs(s[1:] - s[0])))


def _puf_first_eight_users(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    keep = min(len(effectiveness), 8)
    return puf_of(np.asarray(effectiveness)[:keep], similarity[:keep, :keep])


def _puf_float32(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float32)
    sim = np.asarray(similarity, dtype=np.float32)
    m = len(s)
    gaps = np.abs(s[:, None] - s[None, :])
    total = np.float32(0.0)
    for u in range(m):  # accumulated in user order, in float32
        for v in range(u + 1, m):
            total = np.float32(total + sim[u, v] * gaps[u, v])
    return float(np.float32(2.0) * total / np.float32(m * (m - 1)))


def _puf_plus_late_users(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    late = s[10:]
    extra = float(np.abs(late[:, None] - s[None, :]).mean()) if late.size else 0.0
    return (puf_of(s, similarity) + extra) / 2.0


def _deviation_from_first_four(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    return float(np.mean(np.abs(s - s[:4].mean())))


def _sd_over_range(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    return float(np.std(s) / np.ptp(s)) if np.ptp(s) > 0 else float("nan")


FLAWS = [
    planted(
        _puf_nan_at_seven_users,
        family="special inputs",
        expected={"defined": V},
        flaw="PUF, NaN for exactly m = 7 users",
    ),
    planted(
        _puf_nan_on_identical_tied_users,
        family="special inputs",
        expected={"defined": V},
        flaw="PUF, NaN when two identical users (sim 1) tie in effectiveness",
    ),
    planted(
        _puf_raises_on_perfect_users,
        family="special inputs",
        expected={"defined": V},
        flaw="PUF that raises when a user has S = 1 exactly",
    ),
    planted(
        _puf_nan_at_half_similarity,
        family="special inputs",
        expected={"defined": V},
        flaw="PUF, NaN when some similarity is exactly 0.5 (0/0 in a rescaling)",
    ),
    planted(
        _puf_cold_start_filter,
        family="special inputs",
        expected={"defined": V, "lipschitz-continuity": V},
        flaw="PUF over users with S ≥ 0.05 only (a cold-start filter): NaN when < 2 remain",
    ),
    planted(
        _puf_index_weighted,
        family="special inputs",
        expected={"anonymity": V},
        flaw="PUF with user u weighted by 1 − u/(2m) (weight by user index)",
    ),
    planted(
        _gap_to_first_user,
        family="special inputs",
        expected={"anonymity": V},
        flaw="similarity-weighted gap of every user to user 0 only",
    ),
    planted(
        _puf_first_eight_users,
        family="special inputs",
        expected={"anonymity": V},
        flaw="PUF of the first 8 users only (a small share of users, m ≥ 9)",
    ),
    planted(
        _puf_float32,
        family="special inputs",
        expected={"anonymity": V},
        flaw="PUF accumulated in float32 in user order",
    ),
    planted(
        _puf_plus_late_users,
        family="special inputs",
        expected={"similarity-zero": V, "anonymity": V},
        flaw="PUF plus an unweighted gap term for users 11, 12 (only m ≥ 11)",
    ),
    planted(
        _deviation_from_first_four,
        family="special inputs",
        expected={"anonymity": V},
        flaw="mean deviation from the mean of the first 4 users (only m ≥ 5)",
    ),
    planted(
        _sd_over_range,
        family="special inputs",
        expected={"pigou-dalton": V, "defined": V},
        flaw="SD / (max − min): transfers between the extremes raise it (only m ≥ 3); NaN at equality",
    ),
]
