"""Cases that change who is how effective: equality, widened gaps, transfers, one grade changed.

Strategies of :class:`~puf.properties.cases.case.Case` for the catalog's
``zero-at-equality``, ``disparity-monotone``, ``pigou-dalton`` and
``effectiveness-sensitive`` entries. At world level they change relevance
grades of listed items (histories may hold them: the strategies' worlds draw
the two independently), so P@k moves by exactly 1/k per grade.
"""

from __future__ import annotations

__all__ = [
    "effectiveness_change_grid",
    "zero_at_equality_cases",
    "equal_precision",
    "disparity_cases",
    "progressive_transfer_cases",
    "effectiveness_change_cases",
]

from typing import Any
import itertools
import re

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf.synthetic import relevance_from_lists
from puf.metadata import Measure
from puf.population import Population
from puf.world import World

from .case import (
    FRACTIONS_OR_ZERO,
    HALVES_OR_LESS,
    LARGEST,
    Case,
    case_strategy,
    choose_listed,
    derive,
    draw_users,
    listed_relevance,
    trivial_case,
    world_transfer,
)
from .preconditions import (
    TOLERANCE,
    effectiveness_transfer,
    one_step,
    other_fields,
    precondition,
    require,
    same_fields,
    single_population,
)
from .draws import GRID_VALUES, draw_effectiveness
from .strategies import sources

# Where the centre of a widening lies in [min S, max S]: at either end, or anywhere between.
_CENTRE_SHARES = st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0.0, 1.0))


def _zero_at_equality_precondition(case: Any, level: str, measure: Any) -> None:
    single_population(case, level, measure)
    require(np.ptp(case.before.effectiveness) == 0, "np.ptp(case.before.effectiveness) == 0")


@precondition(_zero_at_equality_precondition)
@case_strategy
def zero_at_equality_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Everyone equally effective: S(u) = c at score level; at world level every user's P@k
    equal with the relevance of items outside their own lists left free, so users may envy each
    other (each holds relevant items on another's list), besides the lists fully relevant (S = 1,
    no envy) and nothing relevant (S = 0).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(zero_at_equality_cases("score", "sd"), lambda c: c.before.m == 3)
    >>> len(set(case.before.effectiveness.tolist()))
    1
    >>> case = find(zero_at_equality_cases("world", "me"), lambda c: "envy" in c.change)
    >>> len(set(case.before.effectiveness.tolist()))
    1
    """
    pop, world = draw(sources(level))
    if world is None:
        c = draw(GRID_VALUES)
        return Case(pop.replace(effectiveness=np.full(pop.m, c)), change=f"every S(u) = {c:g}")
    kind = draw(st.sampled_from(("envy", "own-list", "nothing")))
    if kind == "own-list":
        return Case(
            derive(relevance_from_lists(world)),
            change="each user's relevant items are exactly its own list (S = 1, no envy)",
        )
    if kind == "nothing":
        zero = np.zeros((world.m, world.n_items))
        return Case(derive(world.replace(relevance=zero)), change="no relevant item for anyone (S = 0)")
    hits = draw(st.integers(0, world.k))
    return Case(
        derive(equal_precision(world, hits)),
        change=f"every user's list holds exactly {hits} relevant items (S = {hits}/k); "
        "items on other users' lists relevant as drawn, and the next user's "
        "first item relevant when it is not on the user's own list (envy)",
    )


def equal_precision(world: World, hits: int) -> World:
    """``world`` with exactly the first ``hits`` listed items of every user relevant (P@k =
    hits/k for all), the other listed items irrelevant, and the relevance of unlisted items kept;
    the first item of the next user's list, when it is not on the user's own list, made relevant
    (grade 1 at least), so that users envy each other at equal effectiveness.

    Examples
    --------
    >>> from puf import World
    >>> w = World(np.eye(4)[:2], np.zeros((2, 4)), [[0, 1], [2, 3]], np.eye(4))
    >>> equal_precision(w, 1).relevance.toarray().tolist()
    [[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]
    """
    relevance = world.relevance.toarray()
    rows = np.arange(world.m)[:, None]
    listed = world.rankings
    own = relevance[rows, listed]
    nxt = np.roll(listed[:, 0], -1)
    envied = ~(listed == nxt[:, None]).any(axis=1)
    relevance[np.flatnonzero(envied), nxt[envied]] = np.maximum(relevance[np.flatnonzero(envied), nxt[envied]], 1.0)
    first = np.arange(world.k)[None, :] < hits
    relevance[rows, listed] = np.where(first, np.maximum(own, 1.0), 0.0)
    return world.replace(relevance=relevance)


def _disparity_precondition(case: Any, level: str, measure: Any) -> None:
    before, after = case.before.effectiveness, case.after.effectiveness
    if level == "world":
        moved = np.flatnonzero(np.abs(after - before) > 1e-12)
        require(
            len(moved) == 1 and one_step(after[moved[0]] - before[moved[0]]),
            "len(moved) == 1 and one_step(after[moved[0]] - before[moved[0]])",
        )
        user = moved[0]
        if after[user] > before[user]:
            require(before[user] == before.max(), "before[user] == before.max()")
        else:
            require(before[user] == before.min(), "before[user] == before.min()")
        return
    same_fields(case.before, case.after, other_fields(case.before, "effectiveness"))
    if np.ptp(after) == 0:
        np.testing.assert_allclose(before, after, atol=TOLERANCE)
        return
    i, j = int(np.argmin(after)), int(np.argmax(after))
    mu = (before[j] - before[i]) / (after[j] - after[i])
    require(-TOLERANCE <= mu < 1, "-TOLERANCE <= mu < 1")
    centre = after if mu == 0 else None
    c = before[i] if centre is not None else (before[i] - mu * after[i]) / (1 - mu)
    require(after.min() - TOLERANCE <= c <= after.max() + TOLERANCE, f"{(c, after.min(), after.max())!r}")
    np.testing.assert_allclose(before, c + mu * (after - c), atol=1e-9)
    # What the text says is this widening's, as the shown populations are (a shrunk case's too).
    if said := re.search(r"λ = (∞|1/(\S+)).* around c = (\S+)", case.change):
        stated = 0.0 if said[1].startswith("∞") else float(said[2])
        require(np.isclose(c, float(said[3]), rtol=1e-5, atol=1e-9), f"c = {c!r} as the text says")
        require(np.isclose(mu, stated, rtol=1e-5, atol=1e-9), f"μ = {mu!r} as the text says")


@precondition(_disparity_precondition)
@case_strategy
def disparity_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Every gap S(u) − c widened about a centre c inside the population's range [min S, max S]
    (score level); the best-off user's list made more relevant or the worst-off user's less
    (world level).

    At score level the drawn population is the widened one, P'; the case's ``before`` is P with
    S = c + μ(S' − c), μ ∈ [0, 1) (λ = 1/μ > 1), and ``after`` is P'.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(disparity_cases("world", "me"), lambda c: not c.trivial)
    >>> case.change.startswith(("best-off user", "worst-off user"))
    True
    >>> case = find(disparity_cases("score", "gini"), lambda c: c.before.m == 3)
    >>> s = case.after.effectiveness   # a centre in range: P lies within the range of P'
    >>> all(s.min() <= o.before.effectiveness.min() <= o.before.effectiveness.max() <= s.max()
    ...     for o in (case, *case.alternatives))
    True
    """
    pop, world = draw(sources(level))
    s = pop.effectiveness
    if world is None:
        low, high = float(s.min()), float(s.max())
        c = min(low + draw(_CENTRE_SHARES) * (high - low), high)
        mu = draw(FRACTIONS_OR_ZERO)
        # Other centres and factors of the same widening, judged in the same example: flaws that
        # show only for large gaps need a large λ, those at one end a centre there.
        others = []
        for centre in sorted({c, low, high, float(np.clip(s.mean(), low, high)), float(np.median(s))}):
            for factor in (0.3, 0.6, 0.9):
                if (centre, factor) != (c, mu):
                    others.append((centre + factor * (s - centre), centre, factor))
        return Case(
            pop.replace(effectiveness=c + mu * (s - c)),
            pop,
            f"every gap S(u) − c scaled by λ = {_inverse(mu)} around c = {c:g}",
            alternatives=tuple(_widened(pop, narrow, centre, factor) for narrow, centre, factor in others),
        )
    relevance, relevant = listed_relevance(world)
    top = np.flatnonzero((s == s.max()) & (~relevant).any(axis=1))
    if top.size:
        user, item = choose_listed(draw, top, ~relevant, world.rankings)
        grade = draw(st.integers(1, 3))
        after = world.set_relevance(user, item, grade, allow_history=True)
        return Case(
            pop,
            derive(after),
            f"best-off user {user}: listed item {item} relevance 0 → {grade} (every gap to it widens)",
        )
    bottom = np.flatnonzero((s == s.min()) & relevant.any(axis=1))
    if bottom.size:
        user, item = choose_listed(draw, bottom, relevant, world.rankings)
        after = world.set_relevance(user, item, 0.0, allow_history=True)
        return Case(
            pop,
            derive(after),
            f"worst-off user {user}: listed item {item} relevance "
            f"{relevance[user, item]:g} → 0 (every gap to it widens)",
        )
    return trivial_case(pop, "every user already at 0 or 1")


def _inverse(mu: float) -> str:
    """λ = 1/μ as a widening's text says it: ``∞ (from S = c)`` when every user started at the centre.

    >>> _inverse(0.25), _inverse(0.0)
    ('1/0.25', '∞ (from S = c)')
    """
    return "∞ (from S = c)" if mu == 0 else f"1/{mu:g}"


def _widened(pop: Population, narrow: NDArray[np.float64], centre: float, factor: float) -> Case:
    """An alternative of a disparity case: the narrowed population before, ``pop`` after."""
    return Case(
        pop.replace(effectiveness=narrow),
        pop,
        f"every gap S(u) − c scaled by λ = {_inverse(factor)} around c = {centre:g}",
    )


def _transfer(pop: Population, i: int, j: int, tau: float) -> Case:
    s = pop.effectiveness
    after = s.copy()
    after[i], after[j] = s[i] + tau * (s[j] - s[i]), s[j] - tau * (s[j] - s[i])
    return Case(
        pop,
        pop.replace(effectiveness=after),
        f"transfer: S({i}), S({j}) moved towards each other by {tau:g} of their gap",
    )


@precondition(effectiveness_transfer)
@case_strategy
def progressive_transfer_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """A transfer moving two users' effectiveness towards each other (one relevant listed item
    from the best-off to the worst-off user at world level).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(progressive_transfer_cases("score", "sd"), lambda c: c.before.m == 2)
    >>> case.change.startswith("transfer"), len(case.alternatives) > 0
    (True, True)
    """
    pop, world = draw(sources(level))
    s = pop.effectiveness
    if world is None:
        i, j = draw_users(draw, pop.m, 2)
        tau = draw(HALVES_OR_LESS)
        main = _transfer(pop, i, j, tau)
        # The same transfer by other amounts, and between the extremes and their neighbours.
        order = np.argsort(s, kind="stable")
        pairs = {
            (i, j),
            (int(order[0]), int(order[-1])),
            (int(order[-2]), int(order[-1])),
            (int(order[0]), int(order[1])),
        }
        if pop.m <= 6:  # few users: every pair (a transfer's side effect may sit anywhere)
            pairs |= {(a, b) for a in range(pop.m) for b in range(a + 1, pop.m)}
        # The same transfers where similar users are alike (sim 1 within 0.1 of effectiveness,
        # 0 otherwise): pulling a user out of its group is where similarity-aware measures break.
        close = (np.abs(s[:, None] - s[None, :]) <= 0.1).astype(float)
        grouped = pop.replace(similarity=close)
        others = tuple(
            _transfer(base, a, b, t)
            for base in (pop, grouped)
            for a, b in sorted(pairs)
            if a != b
            for t in (0.5, 0.25, 0.1, 0.02)
            if (base, a, b, t) != (pop, i, j, tau)
        )
        return Case(pop, main.after, main.change, alternatives=others)
    return world_transfer(draw, pop, world)


def _effectiveness_change_precondition(case: Any, level: str, measure: Any) -> None:
    same_fields(case.before, case.after, ["similarity"])


@precondition(_effectiveness_change_precondition)
@case_strategy
def effectiveness_change_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Effectiveness replaced (score level) or one relevance grade changed (world level).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(effectiveness_change_cases("world", "me"), lambda c: c.before.m == 2)
    >>> case.change.startswith("user ")
    True
    """
    pop, world = draw(sources(level))
    if world is None:
        return Case(
            pop,
            pop.replace(effectiveness=draw_effectiveness(draw, pop.m, max(LARGEST, pop.m), True)),
            "effectiveness replaced, similarity fixed",
        )
    user = draw(st.integers(0, world.m - 1))
    item = int(world.rankings[user, draw(st.integers(0, world.k - 1))])
    if draw(st.booleans()):
        item = draw(st.integers(0, world.n_items - 1))
    relevance = world.relevance.toarray()
    old = relevance[user, item]
    grade = draw(st.integers(0, 2).map(lambda g: g + (g >= old)))
    case = _regraded(pop, world, relevance, user, item, grade)
    # A random item is mostly in no list, so its grade reaches no utility; a measure that counts
    # users whose envy exceeds a threshold (PEU) moves only when one envy crosses it. So the same
    # user's grades are also changed where they reach envy most: the first item of another
    # user's list (users after this one, in turn) raised to the top grade, the first non-relevant
    # item of the user's own list raised, the first relevant one dropped to 0. No extra draw: the
    # examples of every other measure are unchanged.
    own = world.rankings[user]
    listed = np.concatenate([world.rankings[(user + i) % world.m] for i in range(1, world.m)])
    envied = [i for i in listed if i not in own and relevance[user, i] < _TOP_GRADE][:1]
    raised = [i for i in own if relevance[user, i] < _TOP_GRADE][:1]
    dropped = [i for i in own if relevance[user, i] > 0][:1]
    alternatives = [
        _regraded(pop, world, relevance, user, int(i), g)
        for items, g in ((envied, _TOP_GRADE), (raised, _TOP_GRADE), (dropped, 0))
        for i in items
    ]
    return Case(case.before, case.after, case.change, alternatives=tuple(alternatives))


_TOP_GRADE = 3  # the strategies' worlds grade relevance 0..3


def _regraded(
    pop: Population, world: World, relevance: NDArray[np.float64], user: int, item: int, grade: float
) -> Case:
    return Case(
        pop,
        derive(world.set_relevance(user, item, grade, allow_history=True)),
        f"user {user} item {item} relevance {relevance[user, item]:g} → {grade}",
    )


def effectiveness_change_grid(level: str, measure: Measure) -> list[Case]:
    """Every S in {0, ½, 1}^m for m = 2–3, nobody or everyone alike, with one user's S moved to
    each other grid value: the exhaustive small grid tried when the search found no witness
    (score level; a world has no such grid).

    Examples
    --------
    >>> grid = effectiveness_change_grid("score", "sd")
    >>> len(grid), grid[0].before.effectiveness.tolist(), grid[0].after.effectiveness.tolist()
    (396, [0.0, 0.0], [0.5, 0.0])
    """
    if level != "score":
        return []
    cases = []
    for m in (2, 3):
        for similarity in (np.eye(m), np.ones((m, m))):
            for s in itertools.product((0.0, 0.5, 1.0), repeat=m):
                pop = Population(np.array(s), similarity)
                for user in range(m):
                    for value in (v for v in (0.0, 0.5, 1.0) if v != s[user]):
                        moved = np.array(s)
                        moved[user] = value
                        cases.append(Case(pop, pop.replace(effectiveness=moved), f"grid: user {user}'s S → {value:g}"))
    return cases
