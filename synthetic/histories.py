"""History transformations: raise one pair's similarity, share items, drop shared history.

Each returns a new :class:`puf.World` and leaves its input untouched.
"""

from __future__ import annotations

__all__ = ["add_shared_history", "share_items", "drop_shared_history"]

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from puf.world import World

from ._checks import check_count, check_user


def _check_pair(world: World, u: int, v: int, n_items: int) -> tuple[int, int, int]:
    u, v = check_user(world, u, "u"), check_user(world, v, "v")
    if u == v:
        raise ValueError(f"u and v must be different users, got {u} twice")
    return u, v, check_count(n_items, name="n_items", minimum=1)


def drop_shared_history(world: World) -> World:
    """Keep each history item only for its first holder: every Jaccard between users becomes 0.

    Parameters
    ----------
    world : puf.World

    Returns
    -------
    puf.World
        Only the histories differ; the kept entries keep their values.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.ones((2, 2)), np.eye(2), [[0], [1]], np.eye(2))
    >>> drop_shared_history(w).histories.toarray().tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    """
    held = world.histories.toarray() > 0
    first = np.cumsum(held, axis=0) == 1
    return world.replace(histories=world.histories.multiply(first).tocsr())


def share_items(world: World, u: int, v: int, *, n_items: int = 1) -> World:
    """Add to both histories of u and v the first ``n_items`` items not already in both.

    Unlike :func:`add_shared_history` this never fails and adds no item: it uses the
    items there are (fewer when fewer are missing from either history), and the
    similarities of other pairs involving u or v may change. Jaccard(u, v) rises
    strictly unless it is already 1.

    Parameters
    ----------
    world : puf.World
    u, v : int
        Two different users.
    n_items : int, default 1

    Returns
    -------
    puf.World

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.array([[1, 0], [0, 1]]), np.eye(2), [[0], [1]], np.eye(2))
    >>> share_items(w, 0, 1).histories.toarray().tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    u, v, n_items = _check_pair(world, u, v, n_items)
    histories = world.histories.tolil(copy=True)
    held = world.histories.toarray() > 0
    missing = np.flatnonzero(~(held[u] & held[v]))[:n_items]
    for x in (u, v):
        new = missing[~held[x, missing]]
        histories[x, new] = 1.0
    return world.replace(histories=histories.tocsr())


def _private(pattern: sp.csr_matrix, counts: NDArray[np.int64], user: int, n_items: int) -> NDArray[np.int64] | None:
    """The first ``n_items`` items only ``user`` holds, or None if they have fewer."""
    mine = pattern[user].indices
    private = np.sort(mine[counts[mine] == 1])
    return private[:n_items] if private.size >= n_items else None


def add_shared_history(world: World, u: int, v: int, *, n_items: int = 1) -> World:
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
    u, v, n_items = _check_pair(world, u, v, n_items)
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
    assert vectors is not None  # a World fills in item_vectors when it is not given
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
