"""Cases of ``attainable-range``: populations of one size m, and the candidate extremes at m.

Whether a measure reaches the ends of its declared range at m is a question about every
population of m users. The search answers it with the *candidates* (:func:`candidates`):
for every m, the populations where the measures of effectiveness disparity, of similarity-weighted
gaps and of envy take their extreme values (everyone equal; one user apart from the rest; half
and half; evenly spread; users near zero, so that ratios and logarithms run away; everyone alike,
nobody alike, or alike only across the two halves; at world level, worlds whose lists give
maximal envy, none, nothing relevant or no two lists apart, everyone alike or nobody alike),
built from m alone, plus the drawn population itself. A stored example is a population of m
users, so it replays with every candidate of its size.
"""

from __future__ import annotations

__all__ = ["TINY", "candidates", "size_cases", "size_examples", "reach"]

from collections.abc import Callable, Iterable
import functools
import itertools
import math

import numpy as np

from puf import Population, World
from puf.metadata import Measure

from hypothesis import strategies as st
from numpy.typing import ArrayLike, NDArray

from .case import LARGEST, Case, case_strategy, derive
from .preconditions import precondition, single_population
from .strategies import sources

TINY = 1e-300
"""The smallest effectiveness the candidates use: ratios and logarithms of it run away."""


def _effectiveness_candidates(m: int) -> dict[str, NDArray[np.float64]]:
    half, up = m // 2, -(-m // 2)
    one_high, one_low = np.zeros(m), np.ones(m)
    one_high[-1], one_low[0] = 1.0, 0.0
    vectors = {
        "equal ½": np.full(m, 0.5),
        "all 0": np.zeros(m),
        "all 1": np.ones(m),
        "one at 1, the rest 0": one_high,
        "one at 0, the rest 1": one_low,
        f"{half} at 0, {m - half} at 1": (np.arange(m) >= half).astype(float),
        f"{up} at 0, {m - up} at 1": (np.arange(m) >= up).astype(float),
        "evenly spread": np.linspace(0.0, 1.0, m),
    }
    tiny_one, tiny_half, tiny_rest = one_low.copy(), (np.arange(m) >= half).astype(float), one_high.copy()
    tiny_one[0] = TINY
    tiny_half[:half] = TINY
    tiny_rest[:-1] = TINY
    vectors.update(
        {
            "one at 1e-300, the rest 1": tiny_one,
            f"{half} at 1e-300, the rest 1": tiny_half,
            "one at 1, the rest 1e-300": tiny_rest,
        }
    )
    return vectors


@functools.lru_cache(maxsize=None)
def _score_candidates(m: int) -> dict[str, Population]:
    alike, apart = np.ones((m, m)), np.eye(m)
    out = {}
    for name, s in _effectiveness_candidates(m).items():
        out[f"{name}; everyone alike"] = Population(s, alike)
        out[f"{name}; nobody alike"] = Population(s, apart)
    # Alike only across the two halves: every user's nearest neighbours are on the other side.
    low = np.arange(m) < m // 2
    across = (low[:, None] != low[None, :]).astype(float)
    np.fill_diagonal(across, 1.0)
    out["half at 0, half at 1; alike only across"] = Population((~low).astype(float), across)
    return out


def _world(relevance: NDArray[np.float64], rankings: ArrayLike, *, alike: bool) -> World:
    # Nobody alike: user u's history is item u. Everyone alike: every history is one more item,
    # listed and relevant nowhere (Jaccard 1 between every two users, the lists as they were).
    m, n = relevance.shape
    relevance = np.hstack([relevance, np.zeros((m, 1))]) if alike else relevance
    histories = np.zeros_like(relevance)
    histories[np.arange(m), n if alike else np.arange(m) % n] = 1.0
    return World(histories, relevance, rankings, np.eye(relevance.shape[1]))


@functools.lru_cache(maxsize=None)
def _world_candidates(m: int) -> dict[str, Population]:
    # Item u relevant to user u alone; user v's list: every item but its own (k = m − 1), so
    # every user envies every other by 1. Or each user's list is its own item (k = 1): no envy.
    # Or every list is the same item: no two lists apart.
    own = np.eye(m)
    others = np.array([[i for i in range(m) if i != v] for v in range(m)])
    nothing = np.zeros((m, m))
    worlds = {
        "every list all the others' relevant items (everyone envies everyone)": (own, others),
        "every list its user's one relevant item (no envy)": (own, np.arange(m)[:, None]),
        "nothing relevant": (nothing, np.arange(m)[:, None]),
        "every list item 0, user 0's relevant item (identical lists)": (own, np.zeros((m, 1), dtype=int)),
    }
    return {
        f"{name}; {'everyone' if alike else 'nobody'} alike": derive(_world(*world, alike=alike))
        for name, world in worlds.items()
        for alike in (False, True)
    }


def candidates(case: Case) -> dict[str, Population]:
    """The candidate extremes at the case's size m: the score-level ones, and the world-level
    ones too when the case is a world's (the runner keeps those with every field the measure
    reads, so a stored world example replays on a score-level measure with its candidates).

    Examples
    --------
    >>> from puf import Population
    >>> found = candidates(Case(Population([0.0, 1.0], np.eye(2))))
    >>> len(found), found["one at 1, the rest 0; everyone alike"].effectiveness.tolist()
    (21, [0.0, 1.0])
    """
    m = case.before.m
    found = dict(_score_candidates(m))
    if case.before.utility is not None or case.before.list_distance is not None:
        found.update(_world_candidates(m))
    return found


@precondition(single_population)
@case_strategy
def size_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """One drawn population (its size m sets the candidates the judge reads).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(size_cases("score", "sd"), lambda c: c.before.m == 5).change
    'm = 5: the drawn population and the candidate extremes'
    """
    pop, _ = draw(sources(level))
    return Case(pop, change=f"m = {pop.m}: the drawn population and the candidate extremes")


def size_examples(level: str) -> list[Case]:
    """Every size up to the largest drawn (world level: up to 6), tried first (the runner
    tries the last listed first, so the smallest size comes last).

    Examples
    --------
    >>> [case.before.m for case in size_examples("score")][-3:]
    [4, 3, 2]
    """
    if level == "world":
        return [
            Case(
                _world_candidates(m)["nothing relevant; nobody alike"],
                change=f"explicit: m = {m}, the candidate extremes",
            )
            for m in range(6, 1, -1)
        ]
    return [
        Case(Population(np.full(m, 0.5), np.eye(m)), change=f"explicit: m = {m}, the candidate extremes")
        for m in range(LARGEST, 1, -1)
    ]


GRID = (0.0, 0.5, 1.0)
"""The values of the small grid :func:`reach` searches: {0, ½, 1}^m."""
EXHAUSTIVE = 3**7
"""The largest grid searched whole (m ≤ 7); beyond it, :data:`SAMPLED` grid points at random."""
SAMPLED = 600
CLIMB = 240
"""Measure calls the local optimiser may spend per end of the range."""


def _grid(m: int) -> Iterable[tuple[float, ...]]:
    if len(GRID) ** m <= EXHAUSTIVE:
        return itertools.product(GRID, repeat=m)
    rng = np.random.default_rng(m)  # the same points for the same m: verdicts are reproducible
    return map(tuple, rng.choice(GRID, size=(SAMPLED, m)))


def _climb(
    value: Callable[[Population], float], start: tuple[float, NDArray[np.float64], NDArray[np.float64]], sign: int
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], int]:
    """A coordinate search from ``start`` (value, S, similarity) towards ``sign`` (+1 up, −1 down):
    each user's S moved by ±½, ±¼, … ±1/16 while it helps; ``(value, S, similarity, calls)``."""
    best, s, sim = start
    calls = 0
    for step in (0.5, 0.25, 0.125, 0.0625):
        improved = True
        while improved and calls < CLIMB:
            improved = False
            for user, delta in itertools.product(range(len(s)), (step, -step)):
                moved = s.copy()
                moved[user] = min(1.0, max(0.0, moved[user] + delta))
                if moved[user] == s[user] or calls >= CLIMB:
                    continue
                found = value(Population(moved, sim))
                calls += 1
                if math.isfinite(found) and sign * found > sign * best:
                    best, s, improved = found, moved, True
    return best, s, sim, calls


def _short(s: NDArray[np.float64]) -> str:
    return ", ".join(f"{v:.4g}" for v in s)


def reach(case: Case, value: Callable[[Population], float], measure: Measure) -> tuple[dict[str, float], int]:
    """A stronger search for the ends of the range at the case's m: the lowest and highest
    values over the grid {0, ½, 1}^m (whole for m ≤ 7, sampled beyond; nobody alike, and
    everyone alike when the measure reads similarity), each then pushed further by a local
    optimiser; ``({label: value}, measure calls)``. Score level only (``({}, 0)`` for a world's case).

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> mad = lambda pop: float(2 * np.median(np.abs(pop.effectiveness - np.median(pop.effectiveness))))
    >>> found, calls = reach(Case(Population(np.full(5, 0.5), np.eye(5))), mad, as_measure("sd"))
    >>> sorted(found.values()), calls > 243
    ([0.0, 1.0], True)
    >>> [label for label, v in found.items() if v == 1.0]
    ['highest of the grid and a local search: S = (0, 0, 0.5, 1, 1)']
    """
    pop = case.before
    if pop.utility is not None or pop.list_distance is not None:
        return {}, 0
    m = pop.m
    similarities = [np.eye(m)] + ([np.ones((m, m))] if "similarity" in (measure.reads or ()) else [])
    found, calls = [], 0
    for s in _grid(m):
        for sim in similarities:
            v = value(Population(np.array(s), sim))
            calls += 1
            if math.isfinite(v):
                found.append((v, np.array(s), sim))
    if not found:
        return {}, calls
    ends = {}
    for sign, word in ((-1, "lowest"), (1, "highest")):
        start = max(found, key=lambda f: (sign * f[0], -len(_short(f[1]))))
        best, s, _, used = _climb(value, start, sign)
        calls += used
        ends[f"{word} of the grid and a local search: S = ({_short(s)})"] = best
    return ends, calls
