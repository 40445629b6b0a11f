"""Large, varied populations and worlds: the share of draws beyond the small strategies' 12 users.

A measure that changes behaviour above some size (an estimate from sampled pairs, a
neighbourhood of the 20 most similar users, a normaliser tabulated for small m) or only on
varied data (a path taken on many distinct values) is never judged where it breaks by the small
strategies, whose values sit on a 0.01 grid at a dozen users. These draws reach m from 13 to a
few hundred with continuous values: seeds are drawn and the size and arrays come from numpy's
generator seeded with them (a few Hypothesis choices per population, so a draw costs the same at
any size; a large counterexample stays large, since its size does not shrink). The size is skewed
towards the small end, m = 13 + ⌊(high − 13)·u³⌋, so most of these draws stay cheap while the
largest are still reached.
"""

from __future__ import annotations

__all__ = [
    "LARGE_SHARE",
    "LARGE_EFFECTIVENESS_KINDS",
    "LARGE_SIMILARITY_KINDS",
    "large_populations",
    "large_worlds",
    "example_population",
    "example_world",
]

import functools

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf import Population, World
from puf.validation import check_user_range

LARGE_SHARE = 4
"""A drawn byte ≡ LARGE_SHARE − 1 (mod LARGE_SHARE) makes a case's population a large one:
about one draw in eight (Hypothesis draws many zero bytes, which select the small share)."""
#: The kinds of effectiveness :func:`large_populations` draws.
LARGE_EFFECTIVENESS_KINDS = ("uniform", "beta", "clusters", "grid-and-ends", "one-high", "two-valued")
#: The kinds of similarity :func:`large_populations` draws.
LARGE_SIMILARITY_KINDS = ("uniform", "groups", "sparse", "levels", "all-one")
_SEEDS = st.integers(0, 2**32 - 1)
_SALT = st.binary(min_size=4, max_size=4)


def _generator(draw: st.DrawFn) -> np.random.Generator:
    """numpy's generator seeded from two drawn seeds: Hypothesis draws many zeros, and one
    seed alone would repeat the same population (both zero only about a quarter of the time)."""
    return np.random.default_rng([draw(_SEEDS), int.from_bytes(draw(_SALT), "little")])


def _size(rng: np.random.Generator, low: int, high: int) -> int:
    """A size in [low, high), skewed towards ``low``: low + ⌊(high − low)·u³⌋, u uniform in [0, 1).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> sorted(_size(rng, 13, 300) for _ in range(5))
    [13, 13, 18, 87, 167]
    """
    return low + int((high - low) * rng.random() ** 3)


def _effectiveness(rng: np.random.Generator, m: int, kind: str) -> NDArray[np.float64]:
    if kind == "uniform":
        return rng.random(m)
    if kind == "beta":
        a, b = rng.uniform(0.3, 3.0, 2)
        return rng.beta(a, b, m)
    if kind == "clusters":  # a few levels, each with a little noise: many distinct values
        centres = rng.random(int(rng.integers(2, 5)))
        return np.clip(centres[rng.integers(0, len(centres), m)] + rng.normal(0, 0.02, m), 0, 1)
    if kind == "grid-and-ends":  # 0.01 grid values, exact 0s and 1s among continuous ones
        values = rng.random(m)
        grid = rng.random(m) < 0.4
        values[grid] = np.round(values[grid], 2)
        values[rng.random(m) < 0.1] = 0.0
        values[rng.random(m) < 0.1] = 1.0
        return values
    if kind == "one-high":  # one user at 1, everyone else at 0: the extremes of most indices
        values = np.zeros(m)
        values[rng.integers(0, m)] = 1.0
        return values
    return (rng.random(m) < rng.uniform(0.05, 0.95)).astype(np.float64)


def _similarity(rng: np.random.Generator, m: int, kind: str) -> NDArray[np.float64]:
    if kind == "all-one":
        return np.ones((m, m))
    if kind == "uniform":
        upper = rng.random((m, m))
    elif kind == "groups":  # similar within a group, dissimilar across, with noise
        group = rng.integers(0, int(rng.integers(2, 6)), m)
        same = group[:, None] == group[None, :]
        upper = np.clip(np.where(same, 0.8, 0.1) + rng.normal(0, 0.1, (m, m)), 0, 1)
    elif kind == "sparse":
        upper = rng.random((m, m)) * (rng.random((m, m)) < 0.1)
    else:  # a few levels: ties in who is most similar
        upper = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], (m, m))
    upper = np.triu(upper, k=1)
    matrix = upper + upper.T
    np.fill_diagonal(matrix, 1.0)
    return matrix


@functools.lru_cache(maxsize=None)
def large_populations(min_users: int = 13, max_users: int = 300) -> st.SearchStrategy[Population]:
    """Strategy for score-level populations of ``min_users`` to ``max_users`` − 1 users, continuous.

    Parameters
    ----------
    min_users, max_users : int, default 13, 300
        Bounds of the number of users: ``min_users`` to ``max_users`` − 1 (skewed towards ``min_users``).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of puf.Population
        Effectiveness of the kinds :data:`LARGE_EFFECTIVENESS_KINDS` (uniform, beta-shaped,
        clustered, grid values with exact ends, one user at 1, two-valued) and similarity of
        the kinds :data:`LARGE_SIMILARITY_KINDS`.

    Examples
    --------
    >>> from hypothesis import find
    >>> pop = find(large_populations(), lambda p: len(set(p.effectiveness)) > 50)
    >>> pop.m > 50
    True
    """
    low, high = check_user_range(None, min_users, max_users)

    @st.composite
    def build(draw: st.DrawFn) -> Population:
        rng = _generator(draw)
        m = _size(rng, low, high)
        kinds = draw(st.sampled_from(LARGE_EFFECTIVENESS_KINDS)), draw(st.sampled_from(LARGE_SIMILARITY_KINDS))
        return Population(_effectiveness(rng, m, kinds[0]), _similarity(rng, m, kinds[1]))

    return build()


@functools.lru_cache(maxsize=None)
def large_worlds(min_users: int = 13, max_users: int = 200, max_k: int = 5) -> st.SearchStrategy[World]:
    """Strategy for interaction-level worlds of ``min_users`` to ``max_users`` − 1 users.

    Parameters
    ----------
    min_users, max_users : int, default 13, 200
        Bounds of the number of users: ``min_users`` to ``max_users`` − 1 (skewed towards ``min_users``).
    max_k : int, default 5
        Largest list length; every list is full.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of puf.World
        Histories and graded relevance (0..3) of drawn densities over 20 to 200 items, lists
        as the top k of continuous item scores, multi-hot features.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(large_worlds(), lambda w: w.m > 20).m > 20
    True
    """
    low, high = check_user_range(None, min_users, max_users)

    @st.composite
    def build(draw: st.DrawFn) -> World:
        rng = _generator(draw)
        m, k = _size(rng, low, high), draw(st.integers(1, max_k))
        return _world(rng, m, k)

    return build()


def _world(rng: np.random.Generator, m: int, k: int) -> World:
    n = int(rng.integers(max(20, k), 201))
    histories = (rng.random((m, n)) < rng.uniform(0.02, 0.3)).astype(np.float64)
    grades = rng.integers(1, 4, (m, n)).astype(np.float64)
    relevance = np.where(rng.random((m, n)) < rng.uniform(0.05, 0.5), grades, 0.0)
    rankings = np.argsort(-rng.random((m, n)), axis=1)[:, :k].astype(np.int64)
    features = (rng.random((n, 3)) < 0.4).astype(np.float64)
    features[np.arange(n), np.arange(n) % 3] = 1.0
    return World(histories, relevance, rankings, features)


def example_population(m: int, seed: int = 0) -> Population:
    """A fixed large population of ``m`` users: uniform effectiveness and similarity from ``seed``.

    Examples
    --------
    >>> pop = example_population(20)
    >>> pop.m, len(set(pop.effectiveness.tolist()))
    (20, 20)
    """
    rng = np.random.default_rng(seed)
    return Population(_effectiveness(rng, m, "uniform"), _similarity(rng, m, "uniform"))


def example_world(m: int, seed: int = 0) -> World:
    """A fixed large world of ``m`` users (the :func:`large_worlds` recipe, k = 5, from ``seed``).

    Examples
    --------
    >>> example_world(20).m
    20
    """
    return _world(np.random.default_rng(seed), m, 5)
