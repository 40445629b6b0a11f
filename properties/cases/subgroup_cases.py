"""Cases of the subgroup axioms: a population split into groups, one group's distribution
changed with its size and mean fixed.

**How groups read.** A partition into groups is written into the similarity matrix: users of
different groups have similarity 0 and the users of one group are linked by positive
similarities (its *blocks*, :func:`.groups.groups_of`). An inequality index ignores similarity, so this
is any partition; a similarity-aware measure reads it as groups of users alike only to each
other, which is where decomposing it means something. A group alone is the population of
its users with their similarities, and needs at least two users. Measures read at world level
(utility, list distance) are not applicable: a change of one group's effectiveness at fixed
mean is no world change that leaves the other users' utilities of its lists alone.

Strategies of :class:`~puf.properties.cases.case.Case` for the catalog's
``subgroup-decomposability`` (Shorrocks 1980) and ``subgroup-consistency`` (Shorrocks 1984)
entries, and their derived populations (:func:`decomposition_parts`, :func:`consistency_parts`).
"""

from __future__ import annotations

__all__ = [
    "changed_group",
    "subgroup_cases",
    "decomposition_parts",
    "consistency_parts",
    "subgroup_examples",
    "subgroup_remade",
]

from typing import Any
from collections.abc import Callable, Sequence
import numpy as np
from hypothesis import strategies as st
from numpy.typing import NDArray

from puf import Population
from puf.metadata import Measure

from .case import FRACTIONS_OR_ONE, Case, case_strategy, trivial_case
from .preconditions import other_fields, precondition, require, same_fields
from .draws import draw_grid
from .groups import groups_of
from .strategies import sources

_MAX_GROUP = 6  # six users a group: the inconsistency measure's five neighbours fit inside one


def changed_group(case: Case) -> tuple[list[NDArray[np.int64]], int | None]:
    """``(groups, index)`` of a subgroup case: its groups, and the one whose effectiveness
    changed (None when no group or more than one changed, or the partition differs).

    Examples
    --------
    >>> pop = Population([0.1, 0.3, 0.5, 0.5], np.kron(np.eye(2), np.ones((2, 2))))
    >>> groups, index = changed_group(Case(pop, pop.replace(effectiveness=[0.2, 0.2, 0.5, 0.5])))
    >>> index, [g.tolist() for g in groups]
    (0, [[0, 1], [2, 3]])
    """
    before, after = case.before, case.after
    groups = groups_of(before.similarity)
    if after is None or after.m != before.m or not np.array_equal(before.similarity > 0, after.similarity > 0):
        return groups, None
    moved = [i for i, g in enumerate(groups) if not np.array_equal(before.effectiveness[g], after.effectiveness[g])]
    return groups, (moved[0] if len(moved) == 1 else None)


def _group(pop: Population, members: NDArray[np.int64]) -> Population:
    return pop.replace(effectiveness=pop.effectiveness[members], similarity=pop.similarity[np.ix_(members, members)])


def _smoothed(pop: Population, groups: Sequence[NDArray[np.int64]], keep: int | None) -> Population:
    """``pop`` with every group but ``keep`` at its own mean."""
    s = pop.effectiveness.copy()
    for i, members in enumerate(groups):
        if i != keep:
            s[members] = s[members].mean()
    return pop.replace(effectiveness=s)


def decomposition_parts(case: Case) -> dict[str, Population]:
    """The populations ``subgroup-decomposability`` compares, from a case's before and after.

    ``whole``/``whole_changed`` are the case's own; ``others_smoothed``/``others_smoothed_changed``
    the same with every other group at its mean; ``group_smoothed`` the whole with the changed
    group at its mean; ``group``, ``group_changed``, ``group_at_mean`` that group alone.
    Empty (nothing to judge) unless exactly one group of at least two users changed.

    Examples
    --------
    >>> pop = Population([0.1, 0.3, 0.5, 0.7], np.kron(np.eye(2), np.ones((2, 2))))
    >>> sorted(decomposition_parts(Case(pop, pop.replace(effectiveness=[0.2, 0.2, 0.5, 0.7]))))[:3]
    ['group', 'group_at_mean', 'group_changed']
    """
    groups, index = changed_group(case)
    if index is None or any(len(g) < 2 for g in groups):
        return {}
    members = groups[index]
    at_mean = _smoothed(case.before, groups, keep=None)
    return {
        "others_smoothed": _smoothed(case.before, groups, index),
        "others_smoothed_changed": _smoothed(case.after, groups, index),
        "group_smoothed": case.before.replace(
            effectiveness=np.where(
                np.isin(np.arange(case.before.m), members), at_mean.effectiveness, case.before.effectiveness
            )
        ),
        "group": _group(case.before, members),
        "group_changed": _group(case.after, members),
        "group_at_mean": _group(at_mean, members),
    }


def consistency_parts(case: Case) -> dict[str, Population]:
    """The changed group alone, before and after (``group``, ``group_changed``), for
    ``subgroup-consistency``; empty unless exactly one group of at least two users changed.

    Examples
    --------
    >>> pop = Population([0.1, 0.3, 0.5, 0.7], np.kron(np.eye(2), np.ones((2, 2))))
    >>> sorted(consistency_parts(Case(pop, pop.replace(effectiveness=[0.2, 0.2, 0.5, 0.7]))))
    ['group', 'group_changed']
    """
    groups, index = changed_group(case)
    if index is None or any(len(g) < 2 for g in groups):
        return {}
    members = groups[index]
    return {"group": _group(case.before, members), "group_changed": _group(case.after, members)}


def _block_similarity(draw: st.DrawFn, sizes: Sequence[int], similarity: NDArray[np.float64]) -> NDArray[np.float64]:
    """Block-diagonal similarity: within a group the drawn values raised to at least 0.01
    (so the group stays linked), 0 across groups."""
    m = sum(sizes)
    blocks = np.zeros((m, m))
    start = 0
    for size in sizes:
        block = slice(start, start + size)
        blocks[block, block] = np.maximum(similarity[block, block], 0.01)
        start += size
    np.fill_diagonal(blocks, 1.0)
    return blocks


def _mean_kept(values: NDArray[np.float64], fresh: NDArray[np.float64], fraction: float) -> NDArray[np.float64]:
    """``values`` moved towards ``mean + λ(fresh − mean(fresh))`` at fixed mean, inside [0, 1]
    (``values`` unchanged when no such move keeps the mean to 1e-12)."""
    mean = values.mean()
    for shape in (fresh - fresh.mean(), values - mean):
        if np.max(np.abs(shape)) > 1e-6:
            break
    else:
        return values
    room = min((1.0 - mean) / x if x > 0 else mean / -x for x in shape if x != 0)
    moved = np.clip(mean + fraction * room * shape, 0.0, 1.0)
    return moved if abs(moved.mean() - mean) <= 1e-12 else values


def _nudged(values, direction, size):
    """``values`` moved by at most ``size`` (in each user) along ``direction`` less its mean,
    inside [0, 1] (``values`` unchanged when no such move keeps the mean to 1e-12)."""
    shape = direction - direction.mean()
    if np.max(np.abs(shape)) <= 1e-6:
        return values
    shape = shape / np.max(np.abs(shape))
    room = min((1.0 - v) / x if x > 0 else v / -x for v, x in zip(values, shape) if x != 0)
    moved = np.clip(values + min(size, room) * shape, 0.0, 1.0)
    return moved if abs(moved.mean() - values.mean()) <= 1e-12 else values


_NO_WORLD = Population([0.0, 0.0], np.eye(2))
_SEEDS = st.integers(0, 2**32 - 1)
_NUDGES = 4  # small moves per group of three or more users
_SIZES = st.sampled_from((2, 3, 2, 3, 4, 5, _MAX_GROUP))  # small groups first: overlaps are easy


def _redistributed(
    before: Population,
    sizes: Sequence[int],
    index: int,
    shape: NDArray[np.float64],
    fraction: float,
    *,
    move: Callable[..., NDArray[np.float64]] = _mean_kept,
) -> Case:
    start = sum(sizes[:index])
    members = np.arange(start, start + sizes[index])
    s = before.effectiveness
    changed = s.copy()
    changed[members] = move(s[members], shape[: sizes[index]], fraction)
    return _redistribution(before, changed, list(sizes), index, members)


def _redistribution(
    before: Population, changed: NDArray[np.float64], sizes: list[int], index: int, members: NDArray[np.int64]
) -> Case:
    """The case in which group ``index`` of ``before`` (users ``members``) takes ``changed``."""
    contiguous = len(members) == members[-1] - members[0] + 1
    users = f"{members[0]}–{members[-1]}" if contiguous else ", ".join(map(str, members))
    return Case(
        before,
        before.replace(effectiveness=changed),
        f"groups of sizes {sizes}; group {index} (users {users}) "
        f"redistributed at its mean {before.effectiveness[members].mean():.4g}",
    )


def _subgroup_precondition(case: Any, level: str, measure: Any) -> None:
    """Only effectiveness changes, within one block of the similarity, its sum kept; two blocks
    at least (a partition of one group has no between-group part to read)."""
    same_fields(case.before, case.after, other_fields(case.before, "effectiveness"))
    require(len(groups_of(case.before.similarity)) >= 2, "len(groups_of(case.before.similarity)) >= 2")
    before, after = case.before.effectiveness, case.after.effectiveness
    moved = np.flatnonzero(np.abs(after - before) > 1e-15)
    linked = case.before.similarity > 0
    require(np.all(linked[np.ix_(moved, moved)]), "np.all(linked[np.ix_(moved, moved)])")
    require(
        abs(after[moved].sum() - before[moved].sum()) < 1e-9, "abs(after[moved].sum() - before[moved].sum()) < 1e-9"
    )


@precondition(_subgroup_precondition)
@case_strategy
def subgroup_cases(draw: st.DrawFn, level: str, measure: Measure) -> Case:
    """Two or three groups of 2–6 users (blocks of the similarity); one group's effectiveness
    replaced by another distribution of the same size and mean (score level; world level:
    not applicable, see the module).

    Every group redistributed in four more ways (shapes from one drawn seed), and every group of
    three or more users nudged in four small steps (at most 10⁻³ to 10⁻¹ per user, random
    directions, at its mean), is judged in the same example: a violation needs a change that
    moves the group and the whole apart.

    Examples
    --------
    >>> from hypothesis import find
    >>> case = find(subgroup_cases("score", "sd"), lambda c: not c.trivial)
    >>> groups, index = changed_group(case)
    >>> len(groups) >= 2 and index is not None
    True
    """
    if level == "world":  # no world drawn: nothing at world level is judged
        return trivial_case(_NO_WORLD, "subgroups are read at score level (effectiveness in blocks)")
    pop, _ = draw(sources(level))
    sizes = [draw(_SIZES) for _ in range(draw(st.integers(2, 3)))]
    m = sum(sizes)
    rng = np.random.default_rng(draw(_SEEDS))
    kind = draw(st.sampled_from(("drawn", "grid", "continuous")))
    s = {
        "drawn": lambda: np.resize(pop.effectiveness, m),
        "grid": lambda: draw_grid(draw, m),
        "continuous": lambda: rng.uniform(0.0, 1.0, m),
    }[kind]()
    similarity = np.resize(pop.similarity, (m, m))
    before = Population(s, _block_similarity(draw, sizes, (similarity + similarity.T) / 2))
    index = draw(st.integers(0, len(sizes) - 1))
    main = _redistributed(before, sizes, index, draw_grid(draw, _MAX_GROUP), draw(FRACTIONS_OR_ONE))
    others = tuple(
        _redistributed(before, sizes, g, rng.uniform(0.0, 1.0, _MAX_GROUP), rng.uniform(0.2, 1.0))
        for g in range(len(sizes))
        for _ in range(4)
    )
    # Small moves in random directions: where groups overlap, a small move can raise a group's
    # own value while it lowers the gaps across groups (pair-gap indices such as Gini's).
    nudged = tuple(
        _redistributed(
            before, sizes, g, rng.normal(0.0, 1.0, _MAX_GROUP), 10.0 ** rng.uniform(-3.0, -1.0), move=_nudged
        )
        for g in range(len(sizes))
        if sizes[g] >= 3
        for _ in range(_NUDGES)
    )
    moved = [
        c for c in (main, *others, *nudged) if c.after is not None and not np.array_equal(c.after.effectiveness, s)
    ]
    if not moved:
        return trivial_case(before, "no group's values can move at its mean")
    return Case(before, moved[0].after, moved[0].change, alternatives=tuple(moved[1:]))


def subgroup_examples(level: str) -> list[Case]:
    """Hand-made subgroup cases tried first: overlapping groups of two and three users (the
    pair spread; the three's middle user moved towards the pair, its range kept), two groups
    of six, and a group of two beside one of six.

    Examples
    --------
    >>> [case.before.m for case in subgroup_examples("score")]
    [5, 5, 12, 8]
    >>> subgroup_examples("world")
    []
    """
    if level == "world":
        return []
    blocks = np.zeros((5, 5))
    blocks[:2, :2], blocks[2:, 2:] = 1.0, 1.0
    before = Population([0.2, 0.6, 0.1, 0.5, 0.9], blocks)
    cases = [
        Case(
            before,
            before.replace(effectiveness=[0.0, 0.8, 0.1, 0.5, 0.9]),
            "explicit: groups (0.2, 0.6) and (0.1, 0.5, 0.9); the first spread to (0, 0.8)",
        )
    ]
    # The three's middle user moves towards the pair between its ends, its ends move out: the
    # three's range is kept while the gaps across the groups shrink (Gini's overlap term).
    overlap = Population([0.1, 0.5, 0.9, 0.25, 0.35], blocks[::-1, ::-1].copy())
    cases.append(
        Case(
            overlap,
            overlap.replace(effectiveness=[0.15, 0.4, 0.95, 0.25, 0.35]),
            "explicit: groups (0.1, 0.5, 0.9) and (0.25, 0.35); the three moved to (0.15, 0.4, 0.95) at its mean 0.5",
        )
    )
    # Two groups of six (each user's five nearest neighbours inside its group).
    six = np.kron(np.eye(2), np.full((6, 6), 0.5))
    np.fill_diagonal(six, 1.0)
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.2, 0.3, 0.5, 0.6, 0.8, 0.9])
    spread = s.copy()
    spread[:6] = [0.0, 0.1, 0.35, 0.35, 0.6, 0.7]
    big = Population(s, six)
    cases.append(
        Case(big, big.replace(effectiveness=spread), "explicit: two groups of six; the first spread at its mean 0.35")
    )
    # A group of two beside one of six: the pair's five nearest neighbours reach into the six.
    pair_six = np.zeros((8, 8))
    pair_six[:2, :2], pair_six[2:, 2:] = 0.5, 0.5
    np.fill_diagonal(pair_six, 1.0)
    mixed = Population([0.73, 0.82, 0.36, 0.29, 0.59, 0.62, 0.86, 0.12], pair_six)
    cases.append(
        Case(
            mixed,
            mixed.replace(effectiveness=[0.73, 0.82, 0.845, 0.313, 0.703, 0.427, 0.002, 0.55]),
            "explicit: groups of two and six; the six redistributed at their mean 0.4733",
        )
    )
    return cases


def subgroup_remade(case: Case, pop: Population) -> Case | None:
    """The subgroup case of ``case``'s change around ``pop``, ``case.before`` with one user
    removed or one value moved (how a smaller or simpler population of a find is judged while
    it is shrunk); None when ``pop`` is neither, leaves no group of two or more changed, or
    has a group that is no block (a similarity 0 inside it).

    Each user of the changed group left in ``pop`` moves as it did in ``case``, the moves less
    their mean (the group's mean stays), scaled down where they would leave [0, 1]; every other
    user stays. So a find loses users of its changed group as well as of the others, and any
    value of ``before`` may become simpler (the changed group's values after follow theirs).

    Examples
    --------
    >>> blocks = np.kron(np.eye(2), np.ones((3, 3)))
    >>> pop = Population([0.2, 0.5, 0.8, 0.1, 0.4, 0.7], blocks)
    >>> case = Case(pop, pop.replace(effectiveness=[0.1, 0.5, 0.9, 0.1, 0.4, 0.7]))
    >>> smaller = Population([0.2, 0.8, 0.1, 0.4, 0.7], blocks[1:, 1:])
    >>> remade = subgroup_remade(case, smaller)
    >>> remade.after.effectiveness.tolist(), remade.change
    ([0.1, 0.9, 0.1, 0.4, 0.7], 'groups of sizes [2, 3]; group 0 (users 0–1) redistributed at its mean 0.5')
    """
    groups, index = changed_group(case)
    if index is None or case.after is None:
        return None
    before = case.before
    if pop.m == before.m:
        kept = np.arange(before.m)
    else:
        gone = [u for u in range(before.m) if pop.m == before.m - 1 and _is_without(before, u, pop)]
        if not gone:
            return None
        kept = np.delete(np.arange(before.m), gone[0])
    moves = (case.after.effectiveness - before.effectiveness)[kept]
    members = np.flatnonzero(np.isin(kept, groups[index]))
    regrouped = groups_of(pop.similarity)
    home = [i for i, g in enumerate(regrouped) if np.isin(members, g).all()]
    # Groups are blocks: a similarity moved to 0 inside one leaves no case of the property.
    blocks = all((pop.similarity[np.ix_(g, g)] > 0).all() for g in regrouped)
    if len(members) < 2 or not home or not blocks:
        return None
    shift = np.zeros(pop.m)
    shift[members] = moves[members] - moves[members].mean()
    s = pop.effectiveness
    room = [(1.0 - v) / x if x > 0 else v / -x for v, x in zip(s[members], shift[members]) if abs(x) > 1e-15]
    scale = min([1.0, *room])
    # Twelve decimals: 0.1 − 0.1 + 10⁻¹⁷ is shown as 0 (the mean moves by less than 10⁻¹¹);
    # a user whose value and move are as they were keeps its value after exactly.
    changed = np.clip(np.round(s + scale * shift, 12), 0.0, 1.0)
    same = (s == before.effectiveness[kept]) & (np.abs(scale * shift - moves) <= 1e-12)
    changed[same] = case.after.effectiveness[kept][same]
    if not room or scale <= 0 or abs(changed[members].sum() - s[members].sum()) > 1e-9:
        return None
    return _redistribution(pop, changed, [len(part) for part in regrouped], home[0], regrouped[home[0]])


def _is_without(before: Population, user: int, pop: Population) -> bool:
    """True when ``pop`` is ``before`` without ``user`` (every field; a matrix's row and column)."""
    for name, value in before.fields().items():
        kept = np.delete(value, user, axis=0)
        if value.ndim == 2:
            kept = np.delete(kept, user, axis=1)
        if not np.array_equal(kept, pop.fields()[name]):
            return False
    return True
