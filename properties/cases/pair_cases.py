"""Cases of the pair measures' axioms: a user similar to no one changed, clusters of identical
users, one pair's similarity raised by a bounded step, and the population copied with no
similarity across the copies.

Strategies of :class:`~puf.properties.cases.Case` for the catalog's ``dissimilar-independence``,
``similar-treated-alike``, ``strict-similarity-monotone`` and ``dissimilar-replication`` entries
(:mod:`.pair_axioms`), with the hand-made cases tried before any drawn one. The strict ones bound
their steps away from rounding: gaps of at least :data:`MIN_PAIR_GAP` and raises of at least
:data:`MIN_RAISE`.
"""

from __future__ import annotations

__all__ = [
    "MIN_PAIR_GAP",
    "MIN_RAISE",
    "cluster_labels",
    "disjoint_copies",
    "stranger",
    "isolated_user_cases",
    "isolated_user_examples",
    "cluster_cases",
    "cluster_examples",
    "bounded_raise_cases",
    "bounded_raise_examples",
    "dissimilar_copy_cases",
    "dissimilar_copy_examples",
]

from typing import Any
import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st
from numpy.typing import ArrayLike, NDArray

from puf import Population, World
from puf.metadata import Measure
from puf.synthetic import replicate

from .case import FRACTIONS, LARGEST, Case, case_strategy, derive, draw_users, trivial_case
from .preconditions import TOLERANCE, OutsideStatement, other_fields, precondition, require, same_fields
from .draws import draw_effectiveness, draw_similarity
from .strategies import sources

MIN_PAIR_GAP = 0.01
"""Smallest effectiveness gap of the pair a strict pair axiom judges (identical users told
apart, a pair whose similarity is raised)."""
MIN_RAISE = 0.01
"""Smallest raise of one similarity that ``strict-similarity-monotone`` judges."""

_SEEDS = st.integers(0, 2**32 - 1)


def cluster_labels(similarity: ArrayLike) -> NDArray[np.intp] | None:
    """Each user's cluster (the lowest user of its cluster) when ``similarity`` is 1 inside
    clusters and 0 across them; None for any other matrix.

    Examples
    --------
    >>> cluster_labels([[1, 1, 0], [1, 1, 0], [0, 0, 1]]).tolist()
    [0, 0, 2]
    >>> cluster_labels([[1, 0.5], [0.5, 1]]) is None
    True
    """
    sim = np.asarray(similarity, dtype=np.float64)
    if not np.isin(sim, (0.0, 1.0)).all():
        return None
    labels = np.argmax(sim == 1.0, axis=1)
    return labels if np.array_equal(sim == 1.0, labels[:, None] == labels[None, :]) else None


def disjoint_copies(world: World, r: int) -> World:
    """``r`` copies of ``world``'s users, each copy with its own copy of the items: histories,
    relevance and lists never meet across copies (every Jaccard across them is 0, and no user
    finds a relevant item on another copy's list).

    Examples
    --------
    >>> w = World(np.eye(2), np.eye(2), [[0], [1]], np.eye(2))
    >>> copied = disjoint_copies(w, 2)
    >>> copied.m, copied.n_items, copied.rankings.ravel().tolist()
    (4, 4, [0, 1, 2, 3])
    """
    n = world.n_items
    rankings = np.vstack([np.where(world.rankings >= 0, world.rankings + c * n, -1) for c in range(r)])
    return World(
        histories=sp.block_diag([world.histories] * r, format="csr"),
        relevance=sp.block_diag([world.relevance] * r, format="csr"),
        rankings=rankings,
        item_features=np.vstack([world.item_features] * r),
        item_vectors=np.vstack([world.item_vectors] * r),
    )


# --- dissimilar-independence ------------------------------------------------------------------


def _isolated(pop: Population, user: int) -> Population:
    sim = pop.similarity.copy()
    sim[user, :] = sim[:, user] = 0.0
    sim[user, user] = 1.0
    return pop.replace(similarity=sim)


def _moved_user(pop: Population, user: int, value: float) -> Case:
    s = pop.effectiveness.copy()
    old, s[user] = s[user], value
    return Case(pop, pop.replace(effectiveness=s), f"user {user}, similar to no one, moved {old:g} → {value:g}")


def stranger(world: World, user: int) -> World:
    """``world`` with ``user``'s history cut to the items no other user holds: its Jaccard with
    every other user is 0 (an empty history included), the others' histories unchanged.

    Examples
    --------
    >>> w = World(np.array([[1, 1, 0], [0, 1, 1]]), np.eye(2, 3), [[0], [1]], np.eye(3))
    >>> stranger(w, 0).histories.toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    """
    histories = world.histories.toarray()
    held_by_others = np.delete(histories, user, axis=0).any(axis=0)
    histories[user] = np.where(held_by_others, 0.0, histories[user])
    return world.replace(histories=sp.csr_matrix(histories))


def _regraded(world: World, user: int, item: int, grade: float) -> Case:
    before = derive(world)
    after = derive(world.set_relevance(user, item, grade, allow_history=True))
    return Case(before, after, f"user {user}, similar to no one: r(user {user}, item {item}) set to {grade:g}")


def _envious_pair() -> World:
    """Two users with disjoint histories, each list holding only the other's relevant items."""
    return World(
        np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0]]),
        np.array([[0, 0, 1.0, 1.0], [1.0, 1.0, 0, 0]]),
        [[0, 1], [2, 3]],
        np.eye(4),
    )


def _isolated_user_precondition(case: Any, level: str, measure: Any) -> None:
    """At most one user changed (its S; at world level its relevance: S and its utility row),
    and that user similar to no one."""
    before, after = case.before.fields(), case.after.fields()
    moved = set(np.flatnonzero(before["effectiveness"] != after["effectiveness"]))
    if "utility" in before:
        moved |= set(np.flatnonzero((before["utility"] != after["utility"]).any(axis=1)))
    same_fields(case.before, case.after, other_fields(case.before, "effectiveness", "utility"))
    require(len(moved) <= 1, "len(moved) <= 1")
    for u in moved:
        require(
            np.all(np.delete(before["similarity"][u], u) == 0), 'np.all(np.delete(before["similarity"][u], u) == 0)'
        )


@precondition(_isolated_user_precondition)
@case_strategy
def isolated_user_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """One user made similar to no one (its row of similarity 0), then its effectiveness moved
    to a drawn value, to 0, to 1 and to 1 − S(u); user 0, the first a tie between strangers
    picks, moved likewise. World level: one user's history cut to the items no one else holds
    (:func:`stranger`), and one relevance grade of that user set on its own list and on another
    user's.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(isolated_user_cases("score", "sd"), lambda c: c.before.m == 3)
    >>> moved = np.flatnonzero(case.before.effectiveness != case.after.effectiveness)
    >>> all(case.before.similarity[u].sum() == 1 for u in moved)
    True
    """
    pop, world = draw(sources(level))
    user = draw_users(draw, pop.m, 1)
    if world is None:
        value = draw(st.one_of(st.sampled_from([0.0, 1.0]), FRACTIONS))
        options = []
        for u in dict.fromkeys((user, 0)):
            alone = _isolated(pop, u)
            s_u = float(alone.effectiveness[u])
            options += [_moved_user(alone, u, v) for v in dict.fromkeys((value, 0.0, 1.0, 1.0 - s_u)) if v != s_u]
        if not options:
            return trivial_case(pop, "no effectiveness to move")
        return Case(options[0].before, options[0].after, options[0].change, alternatives=tuple(options[1:]))
    alone = stranger(world, user)
    own = [int(i) for i in alone.rankings[user] if i >= 0]
    others = [int(i) for i in np.delete(alone.rankings, user, axis=0).ravel() if i >= 0 and i not in own]
    current = alone.relevance[user].toarray().ravel()
    options = [
        _regraded(alone, user, item, grade)
        for item in (*own[:1], *others[:2])
        for grade in (0.0, current[item] + 1.0)
        if grade != current[item]
    ]
    if not options:
        return trivial_case(derive(alone), "no listed item to regrade")
    first = options[draw(st.integers(0, len(options) - 1))]
    return Case(first.before, first.after, first.change, alternatives=tuple(options))


def isolated_user_examples(level: str) -> list[Case]:
    """Hand-made cases tried before any drawn one (the last listed first, as Hypothesis runs
    them): six strangers at 0 with user 0 moved to 1 (a measure of each user's five nearest
    neighbours picks strangers by index), and two strangers S = (0, 1) with user 0 moved to 1; world level: two strangers, each listed only the other's relevant
    items, one of them given a relevant item on its own list.

    Examples
    --------
    >>> [case.before.m for case in isolated_user_examples("score")]
    [6, 2]
    >>> isolated_user_examples("world")[0].after.utility[0].tolist()
    [0.5, 1.0]
    """
    if level == "world":
        return [_regraded(_envious_pair(), 0, 0, 1.0)]
    return [
        _moved_user(Population(np.zeros(6), np.eye(6)), 0, 1.0),
        _moved_user(Population([0.0, 1.0], np.eye(2)), 0, 1.0),
    ]


# --- similar-treated-alike --------------------------------------------------------------------


def _split(before: Population, user: int, gap: float) -> Case:
    """``before`` (clusters at equal effectiveness) and the same with ``user`` moved ``gap``
    away from its cluster, up when there is room and down otherwise."""
    s = before.effectiveness.copy()
    room_up = 1.0 - s[user]
    gap = min(gap, max(room_up, s[user]))
    s[user] = s[user] + gap if room_up >= gap else s[user] - gap
    return Case(
        before,
        before.replace(effectiveness=s),
        f"clusters of identical users, effectiveness equal inside each; then user {user} moved {gap:g} from its cluster",
    )


def _clustered(effectiveness: ArrayLike, labels: NDArray[np.intp]) -> Population:
    first = np.unique(labels, return_index=True)
    values = np.asarray(effectiveness, dtype=np.float64)[first[1]]
    s = values[np.searchsorted(first[0], labels)]
    return Population(s, (labels[:, None] == labels[None, :]).astype(np.float64))


def _cluster_precondition(case: Any, level: str, measure: Any) -> None:
    """Clusters of identical users at equal S, then one user of a cluster of two or more moved
    by at least the minimum gap."""
    before, after = case.before.effectiveness, case.after.effectiveness
    labels = cluster_labels(case.before.similarity)
    if labels is None:
        raise OutsideStatement("the users before form no clusters of identical users")
    require(
        1 <= len(set(labels)) <= case.before.m - 1 and case.before.m < 300,
        "1 <= len(set(labels)) <= case.before.m - 1 and case.before.m < 300",
    )
    np.testing.assert_array_equal(before, before[labels])
    same_fields(case.before, case.after, other_fields(case.before, "effectiveness"))
    (u,) = np.flatnonzero(after != before)
    require(
        np.count_nonzero(labels == labels[u]) >= 2 and abs(after[u] - before[u]) >= MIN_PAIR_GAP - 1e-12,
        "np.count_nonzero(labels == labels[u]) >= 2 and abs(after[u] - before[u]) >= MIN_PAIR_GAP - 1e-12",
    )


@precondition(_cluster_precondition)
@case_strategy
def cluster_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Users in 1 to m − 1 clusters of identical users (similarity 1 inside, 0 across; in blocks
    or scattered by index), effectiveness equal inside each cluster (the drawn value of its
    first user); after: one user of a cluster of two or more moved away by a drawn gap, by the
    minimum :data:`MIN_PAIR_GAP` and by as much as it can (score level; a world has no such
    clusters to draw: not applicable).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(cluster_cases("score", "puf"), lambda c: c.before.m == 4)
    >>> cluster_labels(case.before.similarity) is not None
    True
    """
    if level == "world":
        return trivial_case(Population([0.0, 0.0], np.eye(2)), "clusters of identical users are drawn at score level")
    pop, _ = draw(sources(level))
    m = pop.m
    rng = np.random.default_rng(draw(_SEEDS))
    k = draw(st.integers(1, m - 1))
    labels = np.sort(rng.integers(0, k, m)) if draw(st.booleans()) else rng.integers(0, k, m)
    before = _clustered(pop.effectiveness, labels)
    labels = cluster_labels(before.similarity)
    assert labels is not None  # built from labels
    shared = np.flatnonzero(np.bincount(labels, minlength=m)[labels] >= 2)
    user = int(shared[draw(st.integers(0, len(shared) - 1))])
    gap = draw(st.one_of(st.just(MIN_PAIR_GAP), st.floats(MIN_PAIR_GAP, 1.0)))
    others = [_split(before, user, g) for g in (MIN_PAIR_GAP, 1.0) if g != gap]
    others += [_split(before, int(shared[-1]), g) for g in (MIN_PAIR_GAP, 0.5)]
    main = _split(before, user, gap)
    return Case(before, main.after, main.change, alternatives=tuple(others))


def cluster_examples(level: str) -> list[Case]:
    """Hand-made cases tried before any drawn one (the last listed first): 298 users in pairs at
    equal effectiveness with one pair told apart by the minimum gap, a pair beside four single
    users (each user's five nearest neighbours reach into other clusters), and a pair beside a
    single user, S = (1, 1, ½).

    Examples
    --------
    >>> [case.before.m for case in cluster_examples("score")]
    [298, 6, 3]
    """
    if level == "world":
        return []
    pair_and_one = _clustered([1.0, 1.0, 0.5], np.array([0, 0, 2]))
    pair_and_four = _clustered([1.0, 1.0, 0.5, 0.5, 0.5, 0.5], np.array([0, 0, 2, 3, 4, 5]))
    pairs = _clustered(np.full(298, 0.5), np.arange(298) // 2)
    return [_split(pairs, 0, MIN_PAIR_GAP), _split(pair_and_four, 0, 0.5), _split(pair_and_one, 0, 0.5)]


# --- strict-similarity-monotone ---------------------------------------------------------------


def _raisable(pop: Population) -> tuple[NDArray[np.intp], ...]:
    """``(rows, cols)`` of the pairs u < v with a gap of at least MIN_PAIR_GAP and room to raise."""
    s = pop.effectiveness
    gaps = np.abs(s[:, None] - s[None, :]) >= MIN_PAIR_GAP
    return np.nonzero(np.triu(gaps, k=1) & (pop.similarity <= 1.0 - MIN_RAISE))


def _raised_by(pop: Population, u: int, v: int, step: float) -> Case:
    sim = pop.similarity
    new = min(1.0, sim[u, v] + max(step, MIN_RAISE))
    raised = sim.copy()
    raised[u, v] = raised[v, u] = new
    gap = abs(pop.effectiveness[u] - pop.effectiveness[v])
    return Case(pop, pop.replace(similarity=raised), f"sim({u},{v}) raised {sim[u, v]:g} → {new:g} (gap {gap:g})")


def _bounded_raise_precondition(case: Any, level: str, measure: Any) -> None:
    same_fields(case.before, case.after, other_fields(case.before, "similarity"))
    s = case.before.effectiveness
    ((u, v),) = np.argwhere(np.triu(case.after.similarity != case.before.similarity, k=1))
    old, new = case.before.similarity[u, v], case.after.similarity[u, v]
    require(
        abs(s[u] - s[v]) >= MIN_PAIR_GAP - TOLERANCE and old <= 1 - MIN_RAISE + TOLERANCE and case.before.m < 300,
        "abs(s[u] - s[v]) >= MIN_PAIR_GAP - TOLERANCE and old <= 1 - MIN_RAISE + TOLERANCE and case.before.m < 300",
    )
    require(
        old + MIN_RAISE - TOLERANCE <= new <= 1 and case.after.similarity[v, u] == new,
        "old + MIN_RAISE - TOLERANCE <= new <= 1 and case.after.similarity[v, u] == new",
    )


@precondition(_bounded_raise_precondition)
@case_strategy
def bounded_raise_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """sim(u, v) of one pair with a gap of at least :data:`MIN_PAIR_GAP` raised by a drawn step
    of at least :data:`MIN_RAISE` (the derived field, exact at world level: histories feed
    nothing else); the same pair raised to 1 and by the minimum, and the pair with the smallest
    such gap raised by the minimum, judged in the same example.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(bounded_raise_cases("score", "puf"), lambda c: not c.trivial)
    >>> raised = case.after.similarity - case.before.similarity
    >>> bool(raised.max() >= MIN_RAISE - 1e-12)
    True
    """
    pop, _ = draw(sources(level))
    rows, cols = _raisable(pop)
    if rows.size == 0:
        # Equal effectiveness or everyone alike: draw plain fields for the same users instead.
        pop = pop.replace(
            effectiveness=draw_effectiveness(draw, pop.m, max(LARGEST, pop.m), False),
            similarity=draw_similarity(draw, pop.m, max(LARGEST, pop.m), False),
        )
        rows, cols = _raisable(pop)
    if rows.size == 0:
        return trivial_case(pop, f"no pair {MIN_PAIR_GAP:g} apart with similarity below {1 - MIN_RAISE:g}")
    pick = draw(st.integers(0, rows.size - 1))
    u, v = int(rows[pick]), int(cols[pick])
    step = draw(st.one_of(st.just(MIN_RAISE), FRACTIONS))
    gaps = np.abs(pop.effectiveness[rows] - pop.effectiveness[cols])
    small = int(np.argmin(gaps))
    others = [_raised_by(pop, u, v, s) for s in (1.0, MIN_RAISE) if s != step]
    others.append(_raised_by(pop, int(rows[small]), int(cols[small]), MIN_RAISE))
    main = _raised_by(pop, u, v, step)
    return Case(pop, main.after, main.change, alternatives=tuple(others))


def bounded_raise_examples(level: str) -> list[Case]:
    """Hand-made cases tried before any drawn one (the last listed first): two users at the
    minimum gap raised by the minimum from ½, six strangers with the first two made slightly
    similar (a tie between strangers is already broken by index), and two strangers S = (0, 1)
    made fully and slightly similar (0 → 0.01).

    Examples
    --------
    >>> [float(case.after.similarity[0, 1]) for case in bounded_raise_examples("score")]
    [0.51, 0.01, 1.0, 0.01]
    """
    if level == "world":
        return []
    strangers = Population([0.0, 1.0], np.eye(2))
    close = Population([0.5, 0.5 + MIN_PAIR_GAP], [[1.0, 0.5], [0.5, 1.0]])
    six = Population(np.linspace(0.0, 1.0, 6), np.eye(6))
    return [
        _raised_by(close, 0, 1, MIN_RAISE),
        _raised_by(six, 0, 1, MIN_RAISE),
        _raised_by(strangers, 0, 1, 1.0),
        _raised_by(strangers, 0, 1, MIN_RAISE),
    ]


# --- dissimilar-replication -------------------------------------------------------------------


def _copied(pop: Population, r: int) -> Case:
    after = replicate(pop, r).replace(similarity=np.kron(np.eye(r), pop.similarity))
    return Case(pop, after, f"population copied {r} times, similarity 0 across the copies")


def _dissimilar_copy_precondition(case: Any, level: str, measure: Any) -> None:
    m, big = case.before.m, case.after.m
    r = big // m
    require(big == r * m and r in (2, 3), "big == r * m and r in (2, 3)")
    before, after = case.before.fields(), case.after.fields()
    np.testing.assert_array_equal(after["effectiveness"], np.tile(before["effectiveness"], r))
    for name in ("similarity", "utility"):  # 0 across copies: no shared history, no relevant item
        if name in before:
            np.testing.assert_allclose(after[name], np.kron(np.eye(r), before[name]))
    if "list_distance" in before:  # the copies' items have the same features
        np.testing.assert_allclose(after["list_distance"], np.tile(before["list_distance"], (r, r)))


@precondition(_dissimilar_copy_precondition)
@case_strategy
def dissimilar_copy_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """The population copied r = 2 or 3 times, the copies strangers: the similarity matrix block
    diagonal (score level), or each copy with its own copy of the items (world level:
    :func:`disjoint_copies`).

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(dissimilar_copy_cases("score", "puf"), lambda c: c.before.m == 2)
    >>> case.after.similarity[0, 2], case.after.m in (4, 6)
    (np.float64(0.0), True)
    """
    pop, world = draw(sources(level))
    r = draw(st.integers(2, 3))
    if world is None:
        return _copied(pop, r)
    return Case(pop, derive(disjoint_copies(world, r)), f"world copied {r} times, each copy with its own items")


def dissimilar_copy_examples(level: str) -> list[Case]:
    """Hand-made cases tried before any drawn one (the last listed first): six strangers at
    distinct values copied twice (strangers' ties picked by index), and two identical users
    S = (0, 1) copied twice; world level:
    two users each listed only the other's relevant items, copied twice.

    Examples
    --------
    >>> [(case.before.m, case.after.m) for case in dissimilar_copy_examples("score")]
    [(6, 12), (2, 4)]
    >>> [(case.before.m, case.after.m) for case in dissimilar_copy_examples("world")]
    [(2, 4)]
    """
    if level == "world":
        return [
            Case(
                derive(_envious_pair()),
                derive(disjoint_copies(_envious_pair(), 2)),
                "world copied 2 times, each copy with its own items",
            )
        ]
    return [
        _copied(Population(np.linspace(0.0, 1.0, 6), np.eye(6)), 2),
        _copied(Population([0.0, 1.0], np.ones((2, 2))), 2),
    ]
