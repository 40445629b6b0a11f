"""Hypothesis strategies for score-level populations and interaction-level worlds.

Every strategy checks its arguments when it is built (a ``ValueError`` at the
call, not at the first draw) and builds its examples directly, never by
filtering. The edge cases a researcher forgets are mixed in explicitly and
drawn as often as the general case: two users, all-equal, all-zero
effectiveness, all-zero similarity, identical users, one user far from the
rest. Each kind is a ``sampled_from`` whose first entry is the general case,
so shrinking moves towards plain examples.

Sizes (users, items, k) are drawn first and the arrays are always drawn at
their largest shape and then cut to size: lowering the number of users while
shrinking leaves every other value where it was, so Hypothesis reaches the
smallest population (m = 2 where two users suffice) instead of stalling.
Arrays come from one fixed-length byte string each (one Hypothesis choice,
cheap to draw and shrinking towards zero bytes): scores on a 0.01 grid, which
reads well in counterexamples, with a ``continuous`` kind for arbitrary floats.

:func:`sources` is what every strategy of cases draws from: these small populations and
worlds, with a share of the large ones of :mod:`.large_draws` mixed in.
"""

from __future__ import annotations

__all__ = ["effectiveness_vectors", "similarity_matrices", "populations", "worlds", "sources"]

import functools

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf import Population, World
from puf.validation import check_integer, check_user_range

from .case import LARGEST, LARGEST_LARGE, LARGEST_LARGE_WORLD, LEVELS, derive
from .draws import (
    draw_bits,
    draw_effectiveness,
    draw_similarity,
    draw_size,
    draw_user_row,
    kinds,
)
from .large_draws import LARGE_SHARE, large_populations, large_worlds

WORLD_KINDS = (
    "general",
    "zero-relevance",
    "equal-effectiveness",
    "swapped-lists",
    "identical-users",
    "one-far",
    "disjoint-histories",
)


def effectiveness_vectors(
    m: int | None = None, *, min_users: int = 2, max_users: int = 12, edge_cases: bool = True
) -> st.SearchStrategy[NDArray[np.float64]]:
    """Strategy for per-user effectiveness vectors S in [0, 1].

    Parameters
    ----------
    m : int, optional
        Exact number of users (>= 2); otherwise drawn from [min_users, max_users].
    min_users, max_users : int, default 2, 12
        Range of the number of users.
    edge_cases : bool, default True
        Mix in all-equal, all-zero, one-far and two-valued (0/1) vectors.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of numpy.ndarray, shape (m,)

    Examples
    --------
    >>> from hypothesis import find
    >>> find(effectiveness_vectors(m=2), lambda s: s[0] != s[1]).tolist()
    [0.01, 0.0]
    >>> effectiveness_vectors(min_users=1)
    Traceback (most recent call last):
    ...
    ValueError: min_users must be >= 2, got 1
    """
    return _effectiveness(*check_user_range(m, min_users, max_users), bool(edge_cases))


# Strategies are cached: Hypothesis labels a new composite strategy by reading its
# source, which costs milliseconds per instance when built inside a draw.
@functools.lru_cache(maxsize=None)
def _effectiveness(low: int, high: int, edge_cases: bool) -> st.SearchStrategy[NDArray[np.float64]]:
    @st.composite
    def build(draw: st.DrawFn) -> NDArray[np.float64]:
        return draw_effectiveness(draw, draw_size(draw, low, high, edge_cases), high, edge_cases)

    return build()


def similarity_matrices(
    m: int | None = None, *, min_users: int = 2, max_users: int = 12, edge_cases: bool = True
) -> st.SearchStrategy[NDArray[np.float64]]:
    """Strategy for symmetric similarity matrices in [0, 1] with unit diagonal.

    Parameters
    ----------
    m : int, optional
        Exact number of users (>= 2); otherwise drawn from [min_users, max_users].
    min_users, max_users : int, default 2, 12
        Range of the number of users.
    edge_cases : bool, default True
        Mix in all-zero, all-one (everyone alike), all-equal and one-far (a
        user similar to nobody) matrices, and arbitrary floats.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of numpy.ndarray, shape (m, m)

    Examples
    --------
    >>> from hypothesis import find
    >>> sim = find(similarity_matrices(m=2), lambda s: 0 < s[0, 1] < 1)
    >>> sim.shape, bool(sim[0, 1] == sim[1, 0]), float(sim[0, 0])
    ((2, 2), True, 1.0)
    """
    return _similarity(*check_user_range(m, min_users, max_users), bool(edge_cases))


@functools.lru_cache(maxsize=None)
def _similarity(low: int, high: int, edge_cases: bool) -> st.SearchStrategy[NDArray[np.float64]]:
    @st.composite
    def build(draw: st.DrawFn) -> NDArray[np.float64]:
        return draw_similarity(draw, draw_size(draw, low, high, edge_cases), high, edge_cases)

    return build()


def populations(*, min_users: int = 2, max_users: int = 12, edge_cases: bool = True) -> st.SearchStrategy[Population]:
    """Strategy for score-level :class:`puf.Population` (effectiveness and similarity).

    Parameters
    ----------
    min_users, max_users : int, default 2, 12
        Range of the number of users.
    edge_cases : bool, default True
        Mix in the edge cases of :func:`effectiveness_vectors` and
        :func:`similarity_matrices`, and identical users (users 0 and 1 with
        equal effectiveness, similarity 1, and equal similarity to the rest).

    Returns
    -------
    hypothesis.strategies.SearchStrategy of puf.Population

    Examples
    --------
    >>> from hypothesis import find
    >>> pop = find(populations(), lambda p: p.m == 3)
    >>> pop.m, pop.effectiveness.tolist()
    (3, [0.0, 0.0, 0.0])
    """
    return _populations(*check_user_range(None, min_users, max_users), bool(edge_cases))


@functools.lru_cache(maxsize=None)
def _populations(low: int, high: int, edge_cases: bool) -> st.SearchStrategy[Population]:
    @st.composite
    def build(draw: st.DrawFn) -> Population:
        size = draw_size(draw, low, high, edge_cases)
        effectiveness = draw_effectiveness(draw, size, high, edge_cases)
        similarity = draw_similarity(draw, size, high, edge_cases)
        if edge_cases and draw(st.booleans()):
            effectiveness[1] = effectiveness[0]
            similarity[1, :] = similarity[0, :]
            similarity[:, 1] = similarity[:, 0]
            similarity[0, 1] = similarity[1, 0] = similarity[1, 1] = 1.0
        return Population(effectiveness, similarity)

    return build()


def worlds(
    *,
    min_users: int = 2,
    max_users: int = 12,
    max_items: int = 40,
    max_k: int = 5,
    max_grade: int = 3,
    edge_cases: bool = True,
) -> st.SearchStrategy[World]:
    """Strategy for small interaction-level :class:`puf.World` objects.

    Parameters
    ----------
    min_users, max_users : int, default 2, 12
        Range of the number of users.
    max_items : int, default 40
        Largest number of items (at least ``max_k``).
    max_k : int, default 5
        Largest list length; every list is full (no padding).
    max_grade : int, default 3
        Relevance grades are integers in [0, max_grade].
    edge_cases : bool, default True
        Mix in worlds with no relevant item at all, with every list fully
        relevant (equal effectiveness), lists each made for another user
        (relevance of u = the list of u − 1: maximal envy), identical users 0
        and 1, one user sharing no history item with anyone, and pairwise
        disjoint histories.

    Returns
    -------
    hypothesis.strategies.SearchStrategy of puf.World
        Binary histories, graded relevance, (m, k) rankings and multi-hot
        item features (every item has at least one feature).

    Examples
    --------
    >>> from hypothesis import find
    >>> w = find(worlds(), lambda w: w.k == 2)
    >>> w.m, w.n_items, w.rankings.tolist()
    (2, 2, [[0, 1], [0, 1]])
    """
    low, high = check_user_range(None, min_users, max_users)
    max_k = check_integer(max_k, name="max_k", low=1)
    max_items = check_integer(max_items, name="max_items", low=max_k)
    max_grade = check_integer(max_grade, name="max_grade", low=1)
    return _worlds(low, high, max_items, max_k, max_grade, bool(edge_cases))


@functools.lru_cache(maxsize=None)
def _worlds(
    low: int, high: int, max_items: int, max_k: int, max_grade: int, edge_cases: bool
) -> st.SearchStrategy[World]:
    @st.composite
    def build(draw: st.DrawFn) -> World:
        m = draw_size(draw, low, high, edge_cases)
        k = draw(st.integers(1, max_k))
        n = draw(st.integers(k, max_items))
        n_features = draw(st.integers(1, 3))
        # One byte string per user, drawn last user first (see draws.draw_bytes): short strings
        # keep Hypothesis' shrinker cheap, where one (m, n) string costs it O(size²).
        rows = [draw_user_row(draw, max_items, max_grade) for _ in range(high)][::-1]
        histories = np.array([r[0] for r in rows])[:m, :n].astype(np.float64)
        relevance = np.array([r[1] for r in rows])[:m, :n]
        # Lists as the top k of drawn item scores: all-zero scores shrink to [0, 1, ..., k-1].
        scores = np.array([r[2] for r in rows])[:m, :n]
        rankings = np.argsort(-scores, axis=1, kind="stable")[:, :k].astype(np.int64)
        features = draw_bits(draw, (max_items, 3))[:n, :n_features].astype(np.float64)
        features[np.arange(n), np.arange(n) % n_features] = 1.0
        kind = draw(kinds(edge_cases, WORLD_KINDS))
        if kind == "zero-relevance":
            relevance[:] = 0.0
        elif kind == "equal-effectiveness":
            relevance[:] = 0.0
            relevance[np.arange(m)[:, None], rankings] = 1.0
        elif kind == "swapped-lists":
            relevance[:] = 0.0
            relevance[np.roll(np.arange(m), 1)[:, None], rankings] = 1.0
        elif kind == "identical-users":
            for array in (histories, relevance, rankings):
                array[1] = array[0]
        elif kind == "one-far":
            far = draw(st.integers(0, m - 1))
            others = np.delete(histories, far, axis=0).any(axis=0)
            histories[far] = histories[far] * ~others
        elif kind == "disjoint-histories":
            first_holder = np.cumsum(histories, axis=0) == 1
            histories = histories * first_holder
        return World(histories, relevance, rankings, features)

    return build()


@functools.lru_cache(maxsize=None)
def sources(level: str, large: bool = True) -> st.SearchStrategy[tuple[Population, World | None]]:
    """Strategy of ``(population, world)`` pairs: drawn populations (world None) at score
    level, drawn worlds and their derived populations (:func:`~.case.derive`) at world level.

    With ``large`` (default), about one draw in eight (:data:`~.large_draws.LARGE_SHARE`) is a large,
    continuous population (13 to 299 users at score level, 13 to 199 at world level: see
    :mod:`.large_draws`); the rest come from :func:`populations` and :func:`worlds` (2 to 12 users).

    Examples
    --------
    >>> from hypothesis import find
    >>> pop, world = find(sources("world"), lambda pair: pair[0].m == 3)
    >>> pop.m, world.m
    (3, 3)
    >>> find(sources("score"), lambda pair: pair[0].m > 12)[0].m > 12
    True
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if level == "score":
        small, big = populations(), large_populations(LARGEST + 1, LARGEST_LARGE)
        pairs = small.map(lambda p: (p, None)), big.map(lambda p: (p, None))
    else:
        small, big = worlds(), large_worlds(LARGEST + 1, LARGEST_LARGE_WORLD)
        pairs = small.map(lambda w: (derive(w), w)), big.map(lambda w: (derive(w), w))
    if not large:
        return pairs[0]

    @st.composite
    def mixed(draw: st.DrawFn) -> tuple[Population, World | None]:
        # The small share first: shrinking moves a large example towards a small one.
        return draw(pairs[1] if draw(_SHARES)[0] % LARGE_SHARE == LARGE_SHARE - 1 else pairs[0])

    return mixed()


_SHARES = st.binary(min_size=1, max_size=1)  # uniform, where st.integers favours small values
