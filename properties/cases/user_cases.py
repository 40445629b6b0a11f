"""Cases that take one population as drawn, relabel its users, copy them or re-pair their outcomes.

Strategies of :class:`~puf.properties.cases.case.Case` for the catalog's ``range``,
``defined``, ``anonymity``, ``rearrangement``, ``replication-invariance`` and
``deterministic`` entries, with the hand-made populations tried before any drawn one.
"""

from __future__ import annotations

__all__ = [
    "single_cases",
    "extreme_examples",
    "range_examples",
    "NEAR",
    "described",
    "anonymity_cases",
    "anonymity_examples",
    "relabelled_remade",
    "rearrangement_cases",
    "rearrangement_remade",
    "replication_cases",
    "repeat_cases",
    "repeat_remade",
]

from typing import Any
import dataclasses
import re
import functools

import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf import Population, World
from puf.synthetic import move_outcomes, pair_order, replicate, weighted_gap_sum
from puf.metadata import Measure

from .case import LARGEST, Case, case_strategy, derive, trivial_case
from .preconditions import TOLERANCE, OutsideStatement, precondition, require, same_fields, single_population
from .strategies import sources


@precondition(single_population)
@case_strategy
def single_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """One population as drawn, no transformation (``range``, ``defined``).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(single_cases("score", "sd"), lambda c: c.before.m == 4)
    >>> case.after is None, case.change
    (True, 'a population the search drew')
    """
    return Case(draw(sources(level))[0], change="a population the search drew")


def extreme_examples(level: str) -> list[Case]:
    """Hand-made minimal populations tried first for range and defined: users at the extremes.

    Examples
    --------
    >>> [c.before.m for c in extreme_examples("score")][:5]
    [2, 2, 3, 3, 3]
    >>> extreme_examples("world")[0].before.effectiveness.tolist()
    [0.0, 0.0]
    """
    if level == "score":
        # Described as shrinking describes them again: a value it makes simpler is then said.
        cases = [
            Case(pop, change=f"explicit: {described(pop)}")
            for pop in (Population([0.0, 1.0], np.ones((2, 2))), Population([0.0, 0.0], np.eye(2)))
        ]
        # Every size up to the largest drawn, at the extremes and at the values measures treat
        # specially (0, ½, 1): a flaw at one m or one special value is tried, not hoped for.
        for m in (*range(3, LARGEST + 1), *_LARGE_EXPLICIT):
            half = (np.arange(m) >= m // 2).astype(float)
            for pop in (
                Population(half, np.ones((m, m))),
                Population(np.zeros(m), np.eye(m)),
                Population(np.linspace(0.0, 1.0, m), _uniform_similarity(m, 0.5)),
                Population(np.eye(m)[0], np.ones((m, m))),
            ):
                cases.append(Case(pop, change=f"explicit: {described(pop)}"))
        return cases
    # Two users, each list made of the other's relevant items: maximal envy.
    swapped = World(
        np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0]]),
        np.array([[0, 0, 1.0, 1.0], [1.0, 1.0, 0, 0]]),
        [[0, 1], [2, 3]],
        np.eye(4),
    )
    return [Case(derive(swapped), change=f"explicit: {_SWAPPED}")]


_SWAPPED = "each user's list holds only the other's relevant items"

NEAR = 1e-6
"""The step by which :func:`range_examples` moves two users off an extreme: a ratio over it is 10⁶."""


def range_examples(level: str) -> list[Case]:
    """The hand-made populations of ``range``: :func:`extreme_examples`, then two users a step of
    :data:`NEAR` from where a ratio's denominator vanishes (a mean, a gap or a summed similarity):
    a ratio undefined at the extreme itself runs far outside any bounded range beside it.

    Examples
    --------
    >>> for case in range_examples("score")[-3:]:
    ...     print(case.change)
    explicit: m = 2, S = (1e-06, 0), everyone similar
    explicit: m = 2, S = (0.500001, 0.5), everyone similar
    explicit: m = 2, one user at S = 1, the others at 0, every similarity 1e-06
    >>> range_examples("world")[-1].change
    "explicit: each user's list holds only the other's relevant items; m = 2, S = (1e-06, 0), nobody similar"
    """
    extremes = extreme_examples(level)
    if level == "score":
        near_zero, near_tie = np.array([NEAR, 0.0]), np.array([0.5 + NEAR, 0.5])
        near = [Population(near_zero, np.ones((2, 2))), Population(near_tie, np.ones((2, 2)))]
        near.append(Population([1.0, 0.0], _uniform_similarity(2, NEAR)))
        return extremes + [Case(pop, change=f"explicit: {described(pop)}") for pop in near]
    # The lists' envy at equal effectiveness, the effectiveness then moved apart by a step.
    moved = extremes[0].before.replace(effectiveness=np.array([NEAR, 0.0]))
    return extremes + [Case(moved, change=f"explicit: {_SWAPPED}; {described(moved)}")]


_LARGE_EXPLICIT = (13, 20, 50, 100, 300)  # sizes where tables, samples and cut-offs end


def _effectiveness_words(s: NDArray[np.float64]) -> str:
    m = len(s)
    if not s.any():
        return "S = 0"
    if np.array_equal(s, np.eye(m)[0]):
        return "one user at S = 1, the others at 0"
    if np.array_equal(s, (np.arange(m) >= m // 2).astype(float)):
        return "S half 0 and half 1"
    if m > 2 and np.array_equal(s, np.linspace(0.0, 1.0, m)):
        return "S evenly spread"
    if m > 8:
        return f"S in [{s.min():.4g}, {s.max():.4g}]"
    words = [f"{v:.4g}" for v in s]
    if len(set(words)) < len(set(s.tolist())):  # (two values four digits do not tell apart)
        words = [f"{v:.12g}" for v in s]
    return "S = (" + ", ".join(words) + ")"


def _similarity_words(similarity: NDArray[np.float64]) -> str:
    off = similarity[~np.eye(len(similarity), dtype=bool)]
    if not off.any():
        return "nobody similar"
    if (off == 1.0).all():
        return "everyone similar"
    if (off == off[0]).all():
        return f"every similarity {'½' if off[0] == 0.5 else f'{off[0]:.4g}'}"
    return ""


def described(pop: Population) -> str:
    """A population in words, as a hand-made example names it: its size, its effectiveness and
    (where one word says it) its similarity. Shrinking an example says it again of the smaller one.

    Examples
    --------
    >>> described(Population([0.0, 0.0, 1.0, 1.0], np.ones((4, 4))))
    'm = 4, S half 0 and half 1, everyone similar'
    >>> described(Population([1.0, 0.0, 0.0], np.eye(3)))
    'm = 3, one user at S = 1, the others at 0, nobody similar'
    >>> described(Population([0.25, 0.5, 0.0], [[1, 0.3, 0.1], [0.3, 1, 0.2], [0.1, 0.2, 1]]))
    'm = 3, S = (0.25, 0.5, 0)'
    """
    words = [f"m = {pop.m}", _effectiveness_words(pop.effectiveness), _similarity_words(pop.similarity)]
    return ", ".join(word for word in words if word)


def _uniform_similarity(m: int, value: float) -> NDArray[np.float64]:
    similarity = np.full((m, m), value)
    np.fill_diagonal(similarity, 1.0)
    return similarity


@functools.lru_cache(maxsize=None)
def _permutations(m: int) -> st.SearchStrategy[list[int]]:
    return st.permutations(range(m))


def _anonymity_precondition(case: Any, level: str, measure: Any) -> None:
    named = re.search(r"order=\[([0-9, ]*)\]", case.change)
    if named is None:
        raise OutsideStatement(f"the change names no order=[...] of the users: {case.change!r}")
    order = np.array([int(i) for i in named[1].split(",")])
    require(sorted(order) == list(range(case.before.m)), "sorted(order) == list(range(case.before.m))")
    expected = case.before.permute(order)
    # A world relabelled derives its list distances and utilities again: in the users' new
    # places a float sum can round differently in its last bit.
    same_fields(expected, case.after, expected.fields(), rounding=level == "world")


@precondition(_anonymity_precondition)
@case_strategy
def anonymity_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Users relabelled: the drawn order, and two that move every user (reversed, rotated).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(anonymity_cases("score", "sd"), lambda c: c.before.m == 3)
    >>> case.after.m, len(case.alternatives)
    (3, 2)
    """
    pop, world = draw(sources(level))
    order = np.array(draw(_permutations(pop.m)))
    cases = [_relabelled(pop, world, o) for o in (order, np.arange(pop.m)[::-1], np.roll(np.arange(pop.m), 1))]
    return dataclasses.replace(cases[0], alternatives=tuple(cases[1:]))


def anonymity_examples(level: str) -> list[Case]:
    """Hand-made relabellings tried first: two large continuous populations (m = 64 and 300 at
    score level, one of 64 users at world level), reversed and rotated, so that a measure that
    depends on labels only above some size (pairs sampled by index) is judged there every time.

    Examples
    --------
    >>> [c.before.m for c in anonymity_examples("score")]
    [64, 300]
    """
    from .large_draws import example_population, example_world

    if level == "score":
        sources = [(example_population(m), None) for m in (64, 300)]
    else:
        world = example_world(64)
        sources = [(derive(world), world)]
    cases = []
    for pop, world in sources:
        reversed_, rotated = (
            _relabelled(pop, world, o) for o in (np.arange(pop.m)[::-1], np.roll(np.arange(pop.m), 1))
        )
        cases.append(dataclasses.replace(reversed_, alternatives=(rotated,)))
    return cases


def relabelled_remade(case: Case, pop: Population) -> Case | None:
    """The relabellings of ``pop`` that move every user, reversed and (its alternative) rotated:
    how a smaller or simpler population of an anonymity find is judged while it is shrunk,
    whatever order the find was drawn with; None for a population derived from a world, whose
    lists are relabelled with it.

    Examples
    --------
    >>> pop = Population([0.0, 0.5, 1.0], np.eye(3))
    >>> case = relabelled_remade(Case(pop), pop)
    >>> case.after.effectiveness.tolist(), case.alternatives[0].after.effectiveness.tolist()
    ([1.0, 0.5, 0.0], [1.0, 0.0, 0.5])
    """
    if _from_world(pop):
        return None
    reversed_, rotated = (_relabelled(pop, None, o) for o in (np.arange(pop.m)[::-1], np.roll(np.arange(pop.m), 1)))
    return dataclasses.replace(reversed_, alternatives=(rotated,))


def _relabelled(pop: Population, world: World | None, order: NDArray[np.int64]) -> Case:
    after = pop.permute(order) if world is None else derive(world.permute(order))
    return Case(pop, after, f"users relabelled: new user i is old user order[i], order={order.tolist()}")


def _rearrangement_precondition(case: Any, level: str, measure: Any) -> None:
    before, after = case.before, case.after
    np.testing.assert_array_equal(np.sort(before.effectiveness), np.sort(after.effectiveness))
    same_fields(before, after, ["similarity"])
    gap = weighted_gap_sum(after.effectiveness, after.similarity) - weighted_gap_sum(
        before.effectiveness, before.similarity
    )
    require(
        gap >= -TOLERANCE and case.strict == (gap > TOLERANCE), "gap >= -TOLERANCE and case.strict == (gap > TOLERANCE)"
    )


@precondition(_rearrangement_precondition)
@case_strategy
def rearrangement_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """The most_fair against the most_unfair pairing of effectiveness (or outcomes) with users,
    on the small populations only (the pairing search takes seconds above a few dozen users).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(rearrangement_cases("score", "sd"), lambda c: c.strict)
    >>> case.change.startswith("most_fair pairing")
    True
    """
    pop, world = draw(sources(level, large=False))
    case = _pairings(pop, world)
    if case.strict or case.trivial or world is not None:
        return case
    # No pairing of this draw changes Σ sim·|gap| (m = 2, equal S, uniform similarity: a third of
    # the first draws), so it cannot show a measure blind to the pairing. Judge the smallest
    # population where pairings differ too: three users, two of them similar, S from the draw.
    values = np.unique(pop.effectiveness)
    values = values[[0, len(values) // 2, -1]] if len(values) >= 3 else np.array([0.0, 0.5, 1.0])
    similar_pair = np.eye(3)
    similar_pair[0, 1] = similar_pair[1, 0] = 1.0
    smallest = _pairings(Population(values, similar_pair), None)
    return dataclasses.replace(case, alternatives=(smallest,))


def rearrangement_remade(case: Case, pop: Population) -> Case | None:
    """The rearrangement case of ``pop``'s outcomes and similarities, both pairings found anew
    (how a smaller or simpler population of a find is judged while it is shrunk); None for a
    population derived from a world, whose outcomes are lists the population does not hold.

    Examples
    --------
    >>> pop = Population([0.0, 0.5, 1.0], [[1, 1, 0], [1, 1, 0], [0, 0, 1]])
    >>> case = rearrangement_remade(Case(pop), pop)
    >>> case.before.effectiveness.tolist(), case.after.effectiveness.tolist(), case.strict
    ([0.0, 0.5, 1.0], [0.0, 1.0, 0.5], True)
    """
    return None if _from_world(pop) else _pairings(pop, None)


def _from_world(pop: Population) -> bool:
    """True when ``pop`` holds a field only a World supplies (its lists' utilities or distances)."""
    return bool(set(pop.fields()) - {"effectiveness", "similarity"})


def _pairings(pop: Population, world: World | None) -> Case:
    s, sim = pop.effectiveness, pop.similarity
    fair, unfair = (
        pair_order(s, sim, mode=mode, method="auto", random_state=0) for mode in ("most_fair", "most_unfair")
    )
    gap = weighted_gap_sum(s[unfair], sim) - weighted_gap_sum(s[fair], sim)
    if gap < -1e-9:
        return trivial_case(pop, "pairing search ranked the pairings the wrong way")
    if world is None:
        before, after = pop.replace(effectiveness=s[fair]), pop.replace(effectiveness=s[unfair])
    else:
        before, after = (derive(move_outcomes(world, o)) for o in (fair, unfair))
    return Case(
        before,
        after,
        f"most_fair pairing (order {fair.tolist()}) vs most_unfair (order {unfair.tolist()})",
        strict=gap > 1e-9,
    )


def _replication_precondition(case: Any, level: str, measure: Any) -> None:
    m, big = case.before.m, case.after.m
    r = big // m
    require(big == r * m and r in (2, 3), "big == r * m and r in (2, 3)")
    np.testing.assert_array_equal(case.after.effectiveness, np.tile(case.before.effectiveness, r))
    np.testing.assert_allclose(case.after.similarity, np.tile(case.before.similarity, (r, r)))


@precondition(_replication_precondition)
@case_strategy
def replication_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Every user copied r = 2 or 3 times (a user and its copies have similarity 1).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(replication_cases("score", "sd"), lambda c: c.before.m == 2)
    >>> case.after.m in (4, 6)
    True
    """
    pop, world = draw(sources(level))
    r = draw(st.integers(2, 3))
    if world is not None:
        return Case(pop, derive(world.replicate(r)), f"every user copied {r} times")
    # The drawn similarities have a unit diagonal, so the tiled pair (u, copy of u) is 1.
    return Case(pop, replicate(pop, r), f"every user copied {r} times (a user and its copies: similarity 1)")


def _summary_twin(pop: Population, world: World | None) -> Population | None:
    """P with its extremes moved a quarter of their gap towards each other (same m and mean: a
    cache keyed on a summary hits); at world level, P's users relabelled the other way."""
    if world is not None or _from_world(pop):
        order = np.roll(np.arange(pop.m), 1)[::-1]
        return pop.permute(order) if world is None else derive(world.permute(order))
    s = pop.effectiveness.copy()
    low, high = int(np.argmin(s)), int(np.argmax(s))
    s[low], s[high] = 0.75 * s[low] + 0.25 * s[high], 0.25 * s[low] + 0.75 * s[high]
    return pop.replace(effectiveness=s)


def _relabelled_by_one(pop: Population, world: World | None) -> Population | None:
    """P's users relabelled: user i becomes user i + 1."""
    order = np.roll(np.arange(pop.m), 1)
    return pop.permute(order) if world is None else derive(world.permute(order))


def _spread(pop: Population, world: World | None) -> Population | None:
    """P's users at 0 and 1 in turn (the most spread population of its size; score level only)."""
    if world is not None or _from_world(pop):
        return None
    return pop.replace(effectiveness=(np.arange(pop.m) % 2).astype(np.float64))


#: The queries asked before P again, by their change: how each is built from P (None: a
#: population drawn anew, not built from P).
_QUERIES = {
    "P's summary twin (same m and mean), then P again": _summary_twin,
    "P relabelled: user i → i + 1, then P again": _relabelled_by_one,
    "a population drawn anew, then P again": None,
    "P's users at 0 and 1 in turn, then P again": _spread,
}


def _repeat_precondition(case: Any, level: str, measure: Any) -> None:
    require(case.after is not None, "case.after is not None")


@precondition(_repeat_precondition)
@case_strategy
def repeat_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """A population P (``before``) and others asked just before it again (``after`` of the case
    and of its alternatives): P with its extremes moved a quarter of their gap towards each
    other (same size and mean: a cache keyed on a summary hits; at world level, P's users
    relabelled the other way), P relabelled, a population drawn anew and, at score level, P's
    users at 0 and 1 in turn (the most spread population of its size).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(repeat_cases("score", "sd"), lambda c: c.before.m == 3)
    >>> bool(abs(case.after.effectiveness.mean() - case.before.effectiveness.mean()) < 1e-12)
    True
    >>> len(case.alternatives)
    3
    """
    pop, world = draw(sources(level))
    other, _ = draw(sources(level))
    queries = []
    for change, build in _QUERIES.items():
        after = other if build is None else build(pop, world)
        if after is not None:
            queries.append(Case(pop, after, change))
    return dataclasses.replace(queries[0], alternatives=tuple(queries[1:]))


def repeat_remade(case: Case, pop: Population) -> Case | None:
    """``case``'s query asked again around ``pop`` instead of P (how a smaller or simpler P of a
    find is judged while it is shrunk): the same kind of population built from ``pop``, or the
    same population drawn anew; None when the case is none of :func:`repeat_cases`' queries.

    Examples
    --------
    >>> pop = Population([0.0, 0.2, 1.0], np.eye(3))
    >>> case = Case(pop, pop, "known example (sd): P's summary twin (same m and mean), then P again")
    >>> repeat_remade(case, Population([0.2, 1.0], np.eye(2))).after.effectiveness.tolist()
    [0.4, 0.8]
    """
    for change, build in _QUERIES.items():
        if change in case.change:
            after = case.after if build is None else build(pop, None)
            return None if after is None else Case(pop, after, change)
    return None
