"""Planted flaws that show only on large or varied populations, or across calls: an estimate
from sampled pairs above 50 users, a neighbourhood of the 20 most similar users, a normaliser
tabulated up to 12 users, a code path taken only on many distinct values, and state kept
between calls (a running normaliser, a cache keyed on a summary)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .planting import pair_gaps, planted, puf_of

V = "violated"
_PAIRS_SAMPLED = 200


def _puf_sampled_pairs_above_fifty(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    m = len(effectiveness)
    if m <= 50:
        return puf_of(effectiveness, similarity)
    # A fixed sample of pairs by index: which users are compared depends on their labels.
    rng = np.random.default_rng(0)
    u = rng.integers(0, m, _PAIRS_SAMPLED)
    v = (u + rng.integers(1, m, _PAIRS_SAMPLED)) % m
    s = np.asarray(effectiveness)
    return float(np.mean(similarity[u, v] * np.abs(s[u] - s[v])))


def _puf_twenty_nearest(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    m = len(s)
    count = min(20, m - 1)
    sim = np.array(similarity, dtype=np.float64)
    np.fill_diagonal(sim, -np.inf)
    nearest = np.argsort(-sim, axis=1, kind="stable")[:, :count]
    rows = np.arange(m)[:, None]
    return float(np.sum(sim[rows, nearest] * pair_gaps(s)[rows, nearest]) / (m * count))


# m / (m − 1), the factor that makes the Gini reach 1, tabulated for the sizes of a small study.
_GINI_FACTOR = {m: m / (m - 1) for m in range(2, 13)}


def _gini_normalised_by_table(effectiveness: NDArray[np.float64]) -> float:
    s = np.sort(np.asarray(effectiveness, dtype=np.float64))
    m = len(s)
    if s.sum() == 0:
        return 0.0
    gini = float(np.sum((2 * np.arange(1, m + 1) - m - 1) * s) / (m * s.sum()))
    return gini * _GINI_FACTOR.get(m, _GINI_FACTOR[12])


def _sd_binned_when_varied(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    if len(np.unique(s)) > 10:  # "many values: use the 20-bin histogram"
        s = (np.floor(s * 20.0).clip(0, 19) + 0.5) / 20.0
    return float(np.std(s))


def _puf_ranked_by_table(effectiveness: NDArray[np.float64], similarity: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness)
    levels = np.unique(s)
    weights = np.linspace(1.0, 0.5, 20)[np.arange(len(levels))]  # IndexError past 20 levels
    del weights
    return puf_of(s, similarity)


_RUNNING = {"largest": 0.0}


def _sd_over_running_max(effectiveness: NDArray[np.float64]) -> float:
    sd = float(np.std(effectiveness))
    _RUNNING["largest"] = max(_RUNNING["largest"], sd)
    return sd / _RUNNING["largest"] if _RUNNING["largest"] > 0 else 0.0


_CACHE = {}


def _gini_cached_by_mean(effectiveness: NDArray[np.float64]) -> float:
    s = np.asarray(effectiveness, dtype=np.float64)
    key = (len(s), round(float(s.mean()), 6))
    if key not in _CACHE:
        mean = s.mean()
        _CACHE[key] = float(np.abs(s[:, None] - s[None, :]).mean() / (2 * mean)) if mean > 0 else float("nan")
    return _CACHE[key]


FLAWS = [
    planted(
        _puf_sampled_pairs_above_fifty,
        family="large or varied populations",
        expected={"anonymity": V},
        flaw="PUF, estimated from 200 pairs sampled by user index when m > 50",
    ),
    planted(
        _puf_twenty_nearest,
        family="large or varied populations",
        expected={"similarity-monotone": V, "lipschitz-continuity": V},
        flaw="PUF over each user's 20 most similar users (differs from PUF only for m ≥ 22)",
    ),
    planted(
        _gini_normalised_by_table,
        family="large or varied populations",
        expected={"range": V},
        flaw="Gini × m/(m − 1), the factor tabulated for m ≤ 12 and its last entry used above",
    ),
    planted(
        _sd_binned_when_varied,
        family="large or varied populations",
        expected={"lipschitz-continuity": V},
        flaw="SD of values snapped to 20 bins when there are more than 10 distinct values",
    ),
    planted(
        _puf_ranked_by_table,
        family="large or varied populations",
        expected={"defined": V},
        flaw="PUF that raises (a table of 20 levels) when S has more than 20 distinct values",
    ),
    planted(
        _sd_over_running_max,
        family="state between calls",
        expected={"deterministic": V},
        flaw="SD divided by the largest SD seen so far in the process (a running normaliser)",
    ),
    planted(
        _gini_cached_by_mean,
        family="state between calls",
        expected={"deterministic": V},
        flaw="Gini cached by (m, mean): a population sharing both gets the cached value",
    ),
]
