"""Cases that change who is similar to whom: one pair raised, the matrix changed, nobody similar.

Strategies of :class:`~puf.properties.cases.case.Case` for the catalog's
``similarity-monotone``, ``similarity-sensitive`` and ``similarity-zero`` entries.
"""

from __future__ import annotations

__all__ = ["similarity_raise_cases", "similarity_change_cases", "no_similarity_cases", "similarity_change_grid"]

from typing import Any
import itertools

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf.synthetic import add_shared_history, drop_shared_history, share_items
from puf.metadata import Measure
from puf.population import Population

from .case import FRACTIONS_OR_ONE, LARGEST, Case, case_strategy, derive, draw_users, trivial_case
from .preconditions import other_fields, precondition, require, same_fields, single_population
from .draws import draw_effectiveness, draw_similarity
from .strategies import sources


def _similarity_raise_precondition(case: Any, level: str, measure: Any) -> None:
    same_fields(case.before, case.after, other_fields(case.before, "similarity"))
    s = case.before.effectiveness
    diff = np.argwhere(np.triu(case.after.similarity != case.before.similarity, k=1))
    require(len(diff) == 1, "len(diff) == 1")
    u, v = diff[0]
    old, new = case.before.similarity[u, v], case.after.similarity[u, v]
    require(
        s[u] != s[v] and old < new <= 1 and case.after.similarity[v, u] == new,
        "s[u] != s[v] and old < new <= 1 and case.after.similarity[v, u] == new",
    )


@precondition(_similarity_raise_precondition)
@case_strategy
def similarity_raise_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """sim(u, v) of one pair with unequal effectiveness raised alone (the derived field, exact at
    world level too: histories feed nothing else).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(similarity_raise_cases("score", "puf"), lambda c: not c.trivial)
    >>> case.change.startswith("sim(")
    True
    """
    pop, _ = draw(sources(level))
    rows, cols = _raisable_pairs(pop)
    if rows.size == 0:
        # Equal effectiveness or everyone alike (half the edge cases): rather than waste the
        # example, draw plain effectiveness and similarity for the same users.
        pop = pop.replace(
            effectiveness=draw_effectiveness(draw, pop.m, max(LARGEST, pop.m), False),
            similarity=draw_similarity(draw, pop.m, max(LARGEST, pop.m), False),
        )
        rows, cols = _raisable_pairs(pop)
    if rows.size == 0:
        return trivial_case(pop, "no pair with unequal effectiveness and similarity below 1")
    pick = draw(st.integers(0, rows.size - 1))
    u, v = int(rows[pick]), int(cols[pick])
    fraction = draw(FRACTIONS_OR_ONE)
    main = _raised(pop, u, v, fraction)
    # Other amounts for the drawn pair, and the pair with the smallest gap raised fully.
    gaps = np.abs(pop.effectiveness[rows] - pop.effectiveness[cols])
    small = int(np.argmin(gaps))
    others = [_raised(pop, u, v, f) for f in (1.0, 0.5, 0.05, 0.01) if f != fraction]
    others.append(_raised(pop, int(rows[small]), int(cols[small]), 1.0))
    return Case(pop, main.after, main.change, alternatives=tuple(others))


def _raisable_pairs(pop: Population) -> tuple[NDArray[np.intp], ...]:
    """``(rows, cols)`` of the pairs u < v with unequal effectiveness and similarity below 1."""
    s = pop.effectiveness
    return np.nonzero(np.triu(s[:, None] != s[None, :], k=1) & (pop.similarity < 1.0))


def _raised(pop: Population, u: int, v: int, fraction: float) -> Case:
    sim = pop.similarity
    new = sim[u, v] + fraction * (1.0 - sim[u, v])
    raised = sim.copy()
    raised[u, v] = raised[v, u] = new
    return Case(pop, pop.replace(similarity=raised), f"sim({u},{v}) raised {sim[u, v]:g} → {new:g}")


def _similarity_change_precondition(case: Any, level: str, measure: Any) -> None:
    same_fields(case.before, case.after, ["effectiveness"] + (["utility"] if level == "world" else []))


@precondition(_similarity_change_precondition)
@case_strategy
def similarity_change_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """The similarity matrix replaced (score level) or shared history items added to two users
    (world level).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(similarity_change_cases("world", "puf"), lambda c: c.before.m == 2)
    >>> case.change.endswith("added to users 0 and 1") or case.change.endswith("users 1 and 0")
    True
    """
    pop, world = draw(sources(level))
    if world is None:
        return Case(
            pop,
            pop.replace(similarity=draw_similarity(draw, pop.m, max(LARGEST, pop.m), True)),
            "similarity matrix replaced, effectiveness fixed",
        )
    u, v = draw_users(draw, pop.m, 2)
    count = draw(st.integers(1, 3))
    try:
        after = add_shared_history(world, u, v, n_items=count)
    except ValueError:  # no private items to trade: share existing ones, other pairs may move too
        after = share_items(world, u, v, n_items=count)
    return Case(pop, derive(after), f"{count} shared history item(s) added to users {u} and {v}")


def _no_similarity_precondition(case: Any, level: str, measure: Any) -> None:
    single_population(case, level, measure)
    sim = case.before.similarity
    require(
        np.all(sim[~np.eye(case.before.m, dtype=bool)] == 0), "np.all(sim[~np.eye(case.before.m, dtype=bool)] == 0)"
    )


@precondition(_no_similarity_precondition)
@case_strategy
def no_similarity_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Nobody similar to anybody: similarity the identity, or histories made pairwise disjoint.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(no_similarity_cases("world", "puf"), lambda c: c.before.m == 3)
    >>> bool(case.before.similarity[~np.eye(3, dtype=bool)].max() == 0)
    True
    """
    pop, world = draw(sources(level))
    if world is None:
        return Case(pop.replace(similarity=np.eye(pop.m)), change="every similarity between users is 0")
    return Case(
        derive(drop_shared_history(world)),
        change="histories made disjoint (each item kept by its first holder): every Jaccard is 0",
    )


def _one_pair_alike(m: int, v: int) -> np.ndarray:
    """The similarity of m users where users 0 and ``v`` are alike (1) and no other pair is."""
    similarity = np.eye(m)
    similarity[0, v] = similarity[v, 0] = 1.0
    return similarity


def similarity_change_grid(level: str, measure: Measure) -> list[Case]:
    """Every S in {0, ½, 1}^m for m = 2–4 with its similarity turned from nobody alike to
    everyone alike, to half alike and from everyone alike to half, and (m ≥ 3) from users 0 and 1
    alike to users 0 and m − 1 alike: the exhaustive small grid tried when the search found no
    witness (score level; a world has no such grid). The last pair varies across pairs before
    and after, which a measure of how gaps follow similarity (a rank correlation, undefined on a
    constant similarity) needs.

    Examples
    --------
    >>> grid = similarity_change_grid("score", "sd")
    >>> len(grid), grid[0].before.similarity.tolist(), grid[0].after.similarity.tolist()
    (459, [[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]])
    >>> grid[-1].before.similarity.tolist()[0], grid[-1].after.similarity.tolist()[0]
    ([1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 1.0])
    """
    if level != "score":
        return []
    cases = []
    for m in range(2, 5):
        half = np.full((m, m), 0.5)
        np.fill_diagonal(half, 1.0)
        pairs = [(np.eye(m), np.ones((m, m))), (np.eye(m), half), (np.ones((m, m)), half)]
        if m > 2:
            pairs.append((_one_pair_alike(m, 1), _one_pair_alike(m, m - 1)))
        for s in itertools.product((0.0, 0.5, 1.0), repeat=m):
            for before, after in pairs:
                pop = Population(np.array(s), before)
                cases.append(Case(pop, pop.replace(similarity=after), "grid: similarity matrix replaced"))
    return cases
