"""World transformations for the property catalog: each returns a new World, input untouched."""

__all__ = ["more_relevant", "less_relevant", "set_relevance", "add_shared_history"]

import numpy as np
import scipy.sparse as sp

from puf.validation import check_nonnegative_scalar
from puf.world import World

from ._checks import check_count


def _user(world, user, name="user"):
    user = check_count(user, name=name)
    if user >= world.m:
        raise ValueError(f"{name} must be < {world.m} (the number of users), got {user}")
    return user


def _with_row(world, user, grades):
    relevance = world.relevance.tolil(copy=True)
    relevance[user] = grades
    return world.replace(relevance=relevance.tocsr())


def _grade_swap(world, user, more):
    """Swap one in-list grade with one out-of-list grade of ``user`` (see more_relevant)."""
    user = _user(world, user)
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


def more_relevant(world, user):
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


def less_relevant(world, user):
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


def set_relevance(world, user, item, grade):
    """Set one relevance grade r_ui, everything else fixed.

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
    user = _user(world, user)
    item = check_count(item, name="item")
    if item >= world.n_items:
        raise ValueError(f"item must be < {world.n_items} (the number of items), got {item}")
    grade = check_nonnegative_scalar(grade, name="grade")
    if item in world.histories[user].indices:
        raise ValueError(f"item {item} is in user {user}'s history; relevance must stay disjoint from it")
    grades = world.relevance[user].toarray().ravel()
    grades[item] = grade
    return _with_row(world, user, grades)


def _private(pattern, counts, user, n_items):
    """The first ``n_items`` items only ``user`` holds, or None if they have fewer."""
    mine = pattern[user].indices
    private = np.sort(mine[counts[mine] == 1])
    return private[:n_items] if private.size >= n_items else None


def add_shared_history(world, u, v, *, n_items=1):
    """Raise Jaccard(u, v) by giving u and v new shared items; every other pair unchanged.

    Parameters
    ----------
    world : puf.World
    u, v : int
        Two different users.
    n_items : int, default 1
        Number of fresh items added to both histories.

    Returns
    -------
    puf.World
        With ``n_items`` more items (new last columns: no relevance, in no list; features
        and vectors the mean of u's and v's history items). Lists, relevance and all other
        histories are unchanged.

    Raises
    ------
    ValueError
        If u (or v) shares items with a third user and holds fewer than ``n_items``
        items nobody else has.

    Notes
    -----
    Fresh items keep every intersection with a third user w unchanged, but they enlarge
    H_u, which would *lower* J(u, w) = |H_u ∩ H_w| / |H_u ∪ H_w| whenever that overlap
    is non-empty. So for each of u, v that overlaps a third user, as many of its private
    items (held by nobody else, lowest ids first) are removed as fresh ones are added:
    |H_u|, |H_v| and all intersections except H_u ∩ H_v stay as they were, so Jaccard
    (and cosine on binary histories) of every pair other than (u, v) is unchanged, and
    J(u, v) strictly increases unless it is already 1. sim_JS of pairs involving u or v
    may change (their feature distributions move).

    Examples
    --------
    >>> import numpy as np
    >>> from puf.similarity import jaccard_similarity
    >>> from puf import World
    >>> h = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1]])
    >>> w = World(h, np.zeros((3, 4)), [[3], [3], [0]], np.eye(4))
    >>> before = jaccard_similarity(w.histories)
    >>> after = jaccard_similarity(add_shared_history(w, 0, 2).histories)
    >>> round(float(before[0, 2]), 4), round(float(after[0, 2]), 4)
    (0.0, 0.3333)
    >>> bool(np.allclose(np.delete(np.delete(after, 0, 0), 0, 1), np.delete(np.delete(before, 0, 0), 0, 1)))
    True
    >>> bool(after[0, 1] == before[0, 1])
    True
    """
    u, v = _user(world, u, "u"), _user(world, v, "v")
    if u == v:
        raise ValueError(f"u and v must be different users, got {u} twice")
    n_items = check_count(n_items, name="n_items", minimum=1)
    pattern = world.histories.copy()
    pattern.data[:] = 1.0
    counts = np.diff(pattern.tocsc().indptr)
    histories = world.histories.tolil(copy=True)
    for x in (u, v):
        held = pattern[x].indices
        others = counts[held] - 1 - np.isin(held, pattern[u + v - x].indices)
        if (others > 0).any():  # x overlaps a third user: keep |H_x| fixed
            private = _private(pattern, counts, x, n_items)
            if private is None:
                raise ValueError(
                    f"user {x} shares history with a third user and has fewer than {n_items} private "
                    "items to trade for shared ones: adding items would lower its Jaccard with that user"
                )
            histories[x, private] = 0.0
    features, vectors = world.item_features, world.item_vectors
    held = np.union1d(pattern[u].indices, pattern[v].indices)
    share = features / features.sum(axis=1, keepdims=True)
    new_feature = share[held].mean(axis=0) if held.size else np.full(features.shape[1], 1.0 / features.shape[1])
    new_vector = (vectors[held] if held.size else vectors).mean(axis=0)
    shared = sp.lil_matrix((world.m, n_items))
    shared[[u, v], :] = 1.0
    return World(
        histories=sp.hstack([histories.tocsr(), shared.tocsr()], format="csr"),
        relevance=sp.hstack([world.relevance, sp.csr_matrix((world.m, n_items))], format="csr"),
        rankings=world.rankings,
        item_features=np.vstack([features, np.tile(new_feature, (n_items, 1))]),
        item_vectors=np.vstack([vectors, np.tile(new_vector, (n_items, 1))]),
    )
