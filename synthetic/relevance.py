"""Relevance transformations for the property catalog: each returns a new World, input untouched.

More or less relevance in one user's list, one grade set, relevance read from lists. The
primitives (relabelling, replication, one grade set) are methods of :class:`puf.World`; these
are built on the data model and validate their input. The history transformations are
:mod:`puf.synthetic.histories`.
"""

from __future__ import annotations

__all__ = ["more_relevant", "less_relevant", "set_relevance", "relevance_from_lists"]

import numpy as np
from numpy.typing import NDArray

from puf.world import World

from ._checks import check_user


def _with_row(world: World, user: int, grades: NDArray[np.float64]) -> World:
    relevance = world.relevance.tolil(copy=True)
    relevance[user] = grades
    return world.replace(relevance=relevance.tocsr())


def _grade_swap(world: World, user: int, more: bool) -> World:
    """Swap one in-list grade with one out-of-list grade of ``user`` (see more_relevant)."""
    user = check_user(world, user)
    grades = world.relevance[user].toarray().ravel()
    listed = world.rankings[user][world.rankings[user] >= 0]
    outside = np.ones(world.n_items, dtype=bool)
    outside[listed] = False
    outside[world.histories[user].indices] = False  # relevance stays disjoint from history
    candidates = np.flatnonzero(outside)
    if listed.size == 0:
        raise ValueError(f"cannot change the relevance of user {user}'s list: the list is empty")
    inside = grades[listed]
    if more:
        pick_in = listed[np.argmin(inside)]  # first position among the lowest grades
        pick_out = candidates[np.argmax(grades[candidates])] if candidates.size else None
        possible = pick_out is not None and grades[pick_out] > grades[pick_in]
        reason = "its list already holds its highest grades"
    else:
        pick_in = listed[np.argmax(inside)]
        pick_out = candidates[np.argmin(grades[candidates])] if candidates.size else None
        possible = pick_out is not None and grades[pick_out] < grades[pick_in]
        reason = "its list holds no grade above the lowest grade outside it"
    if not possible:
        raise ValueError(f"cannot make user {user}'s list {'more' if more else 'less'} relevant: {reason}")
    grades[[pick_in, pick_out]] = grades[[pick_out, pick_in]]
    return _with_row(world, user, grades)


def more_relevant(world: World, user: int) -> World:
    """Make one user's list more relevant, everything else fixed.

    The lowest grade in u's list (first position among ties) is swapped with the highest
    grade outside it (items not in u's history), when that is higher.

    Parameters
    ----------
    world : puf.World
    user : int

    Returns
    -------
    puf.World
        Only row ``user`` of the relevance differs.

    Raises
    ------
    ValueError
        If no out-of-list grade is higher than an in-list one (the list already holds u's
        top grades). Adding relevance instead could lower NDCG (IDCG grows too), so the
        transform refuses rather than guess; :func:`set_relevance` changes single grades.

    Notes
    -----
    u's multiset of grades is unchanged, so IDCG, recall's denominator and phi_u's
    denominator are unchanged while DCG strictly increases: NDCG@k, phi_u(L_u) and
    DCG rise strictly; P@k, recall, hit rate, reciprocal rank and AP do not fall. Other
    users' effectiveness, all histories and lists are unchanged; u's utility of other
    users' lists may change.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2, 5), [[0, 1, 0, 3, 0], [0, 0, 1, 0, 0]], [[1, 2], [2, 3]], np.ones((5, 1)))
    >>> more_relevant(w, 0).relevance.toarray()[0]  # list [1, 2]: item 2's 0 swaps with item 3's 3
    array([0., 1., 3., 0., 0.])
    """
    return _grade_swap(world, user, more=True)


def less_relevant(world: World, user: int) -> World:
    """Make one user's list less relevant, everything else fixed.

    The highest grade in u's list (first position among ties) is swapped with the lowest
    grade outside it (items not in u's history, often a 0), when that is lower.

    Parameters
    ----------
    world : puf.World
    user : int

    Returns
    -------
    puf.World
        Only row ``user`` of the relevance differs.

    Raises
    ------
    ValueError
        If no grade in the list exceeds the lowest grade outside it (e.g. no relevant item
        in the list).

    Notes
    -----
    The mirror image of :func:`more_relevant`: IDCG is unchanged and DCG strictly falls.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2, 5), [[0, 1, 0, 3, 0], [0, 0, 1, 0, 0]], [[1, 2], [2, 3]], np.ones((5, 1)))
    >>> less_relevant(w, 0).relevance.toarray()[0]  # item 1's 1 swaps with item 4's 0
    array([0., 0., 0., 3., 1.])
    """
    return _grade_swap(world, user, more=False)


def set_relevance(world: World, user: int, item: int, grade: float) -> World:
    """Set one relevance grade r_ui, everything else fixed.

    The validated form of :meth:`puf.World.set_relevance` (``allow_history=False``).

    Parameters
    ----------
    world : puf.World
    user, item : int
        ``item`` must not be in u's history (relevance stays disjoint from it).
    grade : float >= 0

    Returns
    -------
    puf.World

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2, 3), np.zeros((2, 3)), [[1], [2]], np.ones((3, 1)))
    >>> set_relevance(w, 0, 1, 2.0).relevance.toarray()
    array([[0., 2., 0.],
           [0., 0., 0.]])
    """
    return world.set_relevance(user, item, grade)


def relevance_from_lists(world: World) -> World:
    """Make each user's relevant items exactly its own list (grade 1), everything else fixed.

    Every user then has P@k = 1 and own utility 1, so nobody envies anyone.

    Parameters
    ----------
    world : puf.World

    Returns
    -------
    puf.World

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2), np.zeros((2, 2)), [[1], [0]], np.eye(2))
    >>> relevance_from_lists(w).relevance.toarray().tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    rankings = world.rankings
    relevance = np.zeros((world.m, world.n_items))
    rows = np.broadcast_to(np.arange(world.m)[:, None], rankings.shape)
    listed = rankings >= 0
    relevance[rows[listed], rankings[listed]] = 1.0
    return world.replace(relevance=relevance)
