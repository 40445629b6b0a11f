"""Cases of the transfer principles' strict and third-order forms: one transfer that keeps the
order of the two users, and a composite of a progressive transfer low down and a regressive one
higher up that leaves the variance unchanged.

Strategies of :class:`~puf.properties.cases.case.Case` for the catalog's ``strict-transfer``
(Dalton 1920) and ``transfer-sensitivity`` (Kolm 1976; Shorrocks and Foster 1987) entries.
Both bound the sizes involved away from rounding: gaps of at least :data:`MIN_GAP` and
transfers of at least :data:`MIN_SHARE` of the gap, so that a strict fall of the value is
larger than the judge's rounding allowance.
"""

from __future__ import annotations

__all__ = [
    "MIN_GAP",
    "MIN_SHARE",
    "SMALLEST",
    "rounded_away",
    "composite_transfer",
    "strict_transfer_cases",
    "composite_transfer_cases",
    "composite_transfer_worlds",
]

from typing import Any
from collections.abc import Sequence
import math

import numpy as np
from hypothesis import strategies as st
from numpy.typing import ArrayLike, NDArray

from puf import World
from puf.metadata import Measure
from puf.population import Population

from .case import Case, case_strategy, derive, trivial_case, world_transfer
from .preconditions import TOLERANCE, effectiveness_transfer, precondition, require
from .strategies import sources

MIN_GAP = 0.01
"""Smallest gap S_j − S_i between the two users of a transfer the search makes."""
MIN_SHARE = 0.01
"""Smallest share τ of their gap that a transfer moves (τ ∈ [MIN_SHARE, ½])."""

SMALLEST = 1e-3
"""Positive effectiveness below this is set to 0 in a transfer case: 1 − (geometric mean)/μ and
the like round to their limit there, so a strict fall would be lost to rounding."""

_SHARES = st.one_of(st.sampled_from([0.5, 0.25, 0.1]), st.floats(MIN_SHARE, 0.5))


def rounded_away(pop: Population) -> Population:
    """``pop`` with every effectiveness in (0, SMALLEST) set to 0.

    Examples
    --------
    >>> from puf import Population
    >>> rounded_away(Population([1e-38, 0.5], np.eye(2))).effectiveness.tolist()
    [0.0, 0.5]
    """
    s = pop.effectiveness
    return pop.replace(effectiveness=np.where(s < SMALLEST, 0.0, s))


def _transfer(pop: Population, i: int, j: int, tau: float) -> Case:
    """``pop`` with τ of the gap between users i (worse off) and j moved from j to i."""
    s = pop.effectiveness.copy()
    gap = s[j] - s[i]
    s[i], s[j] = s[i] + tau * gap, s[j] - tau * gap
    return Case(
        pop,
        pop.replace(effectiveness=s),
        f"transfer of {tau:g} of their gap from user {j} ({pop.effectiveness[j]:g}) to "
        f"user {i} ({pop.effectiveness[i]:g}); their order is kept",
    )


def _strict_transfer_precondition(case: Any, level: str, measure: Any) -> None:
    effectiveness_transfer(case, level, measure)
    if level == "score":
        before, after = case.before.effectiveness, case.after.effectiveness
        require(np.all((before == 0) | (before >= 1e-3)), "np.all((before == 0) | (before >= 1e-3))")
        i, j = sorted(np.flatnonzero(np.abs(after - before) > 1e-15), key=lambda u: before[u])
        tau = (after[i] - before[i]) / (before[j] - before[i])
        require(
            before[j] - before[i] >= 0.01 - TOLERANCE and 0.01 - TOLERANCE <= tau <= 0.5 + TOLERANCE,
            "before[j] - before[i] >= 0.01 - TOLERANCE and 0.01 - TOLERANCE <= tau <= 0.5 + TOLERANCE",
        )


@precondition(_strict_transfer_precondition)
@case_strategy
def strict_transfer_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """A transfer of τ ∈ [0.01, ½] of a gap of at least 0.01 from the better-off user to the
    worse-off one (one relevant listed item from the best-off to the worst-off user at world
    level, as for ``pigou-dalton``).

    The same transfer by other amounts, and between other pairs (the extremes and their
    neighbours, the second lowest and second highest), are judged in the same example: a
    measure that reads only the extremes (max-min) or the side of the mean (Hoover) is blind
    to some of them.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(strict_transfer_cases("score", "sd"), lambda c: not c.trivial)
    >>> case.change.startswith("transfer of"), len(case.alternatives) > 0
    (True, True)
    """
    if level == "world":
        return world_transfer(draw, *draw(sources(level)))
    pop = rounded_away(draw(sources(level))[0])
    s = pop.effectiveness
    # Every ordered pair (a, b) with S_b − S_a ≥ MIN_GAP, a major and b minor (one array
    # operation: at m = 300 a loop over the 90,000 pairs cost a tenth of a second per example).
    lows, highs = np.nonzero(s[None, :] - s[:, None] >= MIN_GAP)
    if not len(lows):
        return trivial_case(pop, f"no two users {MIN_GAP:g} apart")
    pick = draw(st.integers(0, len(lows) - 1))
    i, j = int(lows[pick]), int(highs[pick])
    tau = draw(_SHARES)
    order = np.argsort(s, kind="stable")
    chosen = {
        (int(order[0]), int(order[-1])),
        (int(order[-2]), int(order[-1])),
        (int(order[0]), int(order[1])),
        (int(order[1]), int(order[-2])),
    }
    others = tuple(
        _transfer(pop, a, b, t)
        for a, b in sorted(chosen)
        if s[b] - s[a] >= MIN_GAP
        for t in (0.5, MIN_SHARE)
        if (a, b, t) != (i, j, tau)
    )
    main = _transfer(pop, i, j, tau)
    return Case(pop, main.after, main.change, alternatives=others)


def composite_transfer(s: ArrayLike, users: Sequence[int], share: float) -> NDArray[np.float64] | None:
    """The variance-preserving composite transfer on effectiveness ``s``, or None.

    ``users`` = (a, b, c, d) with S_a < S_b ≤ S_c < S_d. A progressive transfer δ₁ = share·(S_b − S_a)
    from b to a, and a regressive transfer δ₂ from c to d with δ₂(S_d − S_c + δ₂) = δ₁(S_b − S_a − δ₁),
    so that the mean and the variance are unchanged. None unless S_b ≤ S_c − δ₂ (the progressive
    transfer lies wholly below the regressive one) and S_d + δ₂ ≤ 1.

    Examples
    --------
    >>> composite_transfer(np.array([0.0, 0.3, 0.4, 0.5]), (0, 1, 2, 3), 1 / 3).round(12).tolist()
    [0.1, 0.2, 0.3, 0.6]
    """
    a, b, c, d = users
    low, high = s[b] - s[a], s[d] - s[c]
    if not (low >= MIN_GAP and high >= MIN_GAP and s[b] <= s[c]):
        return None
    first = share * low
    second = 0.5 * (-high + math.sqrt(high * high + 4.0 * first * (low - first)))
    if s[b] > s[c] - second or s[d] + second > 1.0:
        return None
    after = s.astype(np.float64).copy()
    after[a] += first
    after[b] -= first
    after[c] -= second
    after[d] += second
    return after


def _composite_transfer_precondition(case: Any, level: str, measure: Any) -> None:
    """Four users moved, the sum and the sum of squares of S kept (mean and variance)."""
    before, after = case.before.effectiveness, case.after.effectiveness
    require(
        len(np.flatnonzero(np.abs(after - before) > 1e-15)) == 4,
        "len(np.flatnonzero(np.abs(after - before) > 1e-15)) == 4",
    )
    require(abs(after.sum() - before.sum()) < 1e-9, "abs(after.sum() - before.sum()) < 1e-9")
    require(abs((after**2).sum() - (before**2).sum()) < 1e-9, "abs((after**2).sum() - (before**2).sum()) < 1e-9")


@precondition(_composite_transfer_precondition)
@case_strategy
def composite_transfer_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """A favourable composite transfer: progressive between users a < b, regressive between
    c < d higher up (S_b ≤ S_c − δ₂), the variance unchanged (score level; at world level
    the hand-made worlds of :func:`composite_transfer_worlds` are the cases).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(composite_transfer_cases("score", "ge-1"), lambda c: not c.trivial)
    >>> case.change.startswith("composite transfer")
    True
    """
    pop = rounded_away(draw(sources(level))[0])
    if level == "world" or pop.m < 4:
        return trivial_case(pop, "a composite transfer needs four users (world level: hand-made cases)")
    users = list(range(pop.m))
    picked = []
    for _ in range(4):
        picked.append(users.pop(draw(st.integers(0, len(users) - 1))))
    s = pop.effectiveness.copy()
    # Four values on the 0.01 grid, sorted: the drawn population's own values where they
    # allow a composite transfer, drawn ones otherwise.
    values = sorted(s[picked])
    if composite_transfer(np.array(values), (0, 1, 2, 3), 0.01) is None:
        values = sorted(draw(st.lists(st.integers(0, 100), min_size=4, max_size=4, unique=True)))
        values = [v / 100 for v in values]
    s[picked] = values
    before = pop.replace(effectiveness=s)
    cases = []
    for share in (draw(_SHARES), 0.5, 0.25, 0.1, 0.02):
        after = composite_transfer(s, tuple(picked), share)
        if after is not None:
            cases.append(
                Case(
                    before,
                    before.replace(effectiveness=after),
                    f"composite transfer (variance kept): users {picked[0]} ← {picked[1]} "
                    f"progressive, {picked[2]} → {picked[3]} regressive, "
                    f"share {share:g} of the lower gap",
                )
            )
    if not cases:
        return trivial_case(before, "no composite transfer fits these four values in [0, 1]")
    return Case(cases[0].before, cases[0].after, cases[0].change, alternatives=tuple(cases[1:]))


def composite_transfer_worlds(level: str) -> list[Case]:
    """Hand-made composite transfers, tried first: four users at S = (0, 0.3, 0.4, 0.5), the
    composite (+0.1, −0.1, −0.1, +0.1) taking them to (0.1, 0.2, 0.3, 0.6).

    At world level each user's list is ten items of its own (P@10); the variance is kept
    because the lower gap (0.3) exceeds the upper one (0.1) by twice the transfer. A second
    world lets every user's list hold one item relevant to the next user (some envy).

    At score level a second composite takes S = (0, 0.35, 0.5, 0.55) to (0.05, 0.3, 0.4, 0.65):
    0.05 across the wide lower gap, 0.1 across the narrow upper one. A measure of ranks
    weighted by value (the mean difference, Gini) rises by a tenth of its sum, which a float16
    or float32 value shows where the first composite's exact tie lies within its resolution.

    Examples
    --------
    >>> [case.before.effectiveness.tolist() for case in composite_transfer_worlds("score")]
    [[0.0, 0.3, 0.4, 0.5], [0.0, 0.35, 0.5, 0.55]]
    >>> len(composite_transfer_worlds("world"))
    2
    """
    before, after = np.array([0.0, 0.3, 0.4, 0.5]), np.array([0.1, 0.2, 0.3, 0.6])
    change = "explicit: composite transfer S = (0, 0.3, 0.4, 0.5) → (0.1, 0.2, 0.3, 0.6), variance kept"
    if level == "score":
        from puf import Population

        wide = Population(np.array([0.0, 0.35, 0.5, 0.55]), np.eye(4))
        pop = Population(before, np.eye(4))
        return [
            Case(pop, pop.replace(effectiveness=after), change),
            Case(
                wide,
                wide.replace(effectiveness=np.array([0.05, 0.3, 0.4, 0.65])),
                "explicit: composite transfer S = (0, 0.35, 0.5, 0.55) → (0.05, 0.3, 0.4, 0.65), variance kept",
            ),
        ]
    cases = []
    for shared in (False, True):
        worlds = [_own_lists_world(counts, shared) for counts in (before, after)]
        cases.append(
            Case(
                derive(worlds[0]),
                derive(worlds[1]),
                change + (" (each list holds one item relevant to the next user)" if shared else ""),
            )
        )
    return cases


def _own_lists_world(effectiveness: NDArray[np.float64], shared: bool) -> World:
    """Four users with lists of ten own items, the first 10·S(u) of them relevant to u."""
    m, k = 4, 10
    rankings = np.arange(m * k).reshape(m, k)
    relevance = np.zeros((m, m * k))
    for u, value in enumerate(effectiveness):
        relevance[u, rankings[u, : int(round(value * k))]] = 1.0
        if shared:  # user u also likes the last item of the next user's list
            relevance[u, rankings[(u + 1) % m, -1]] = 1.0
    histories = np.zeros((m, m * k))  # item 0 shared by all, one item each: every Jaccard ⅓
    histories[:, 0] = 1.0
    histories[np.arange(m), np.arange(1, m + 1)] = 1.0
    return World(histories, relevance, rankings, np.eye(m * k))
