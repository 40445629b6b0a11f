"""World-level transformations used by the property cases (private).

Each returns a new :class:`puf.World` and leaves its input untouched. They
are small and exact on purpose: a property needs to know precisely which
derived fields a change can reach (relevance feeds effectiveness and
utility; histories feed similarity only; rankings feed all but similarity).
Users are permuted and replicated with :mod:`synthetic`'s transformations;
the ones here are those :mod:`synthetic` does not offer in this form
(:func:`set_relevance` here accepts an item in the user's history, which the
strategies' worlds allow; :func:`add_shared_item` always succeeds).
"""

__all__ = [
    "METRIC",
    "SIMILARITY",
    "derive",
    "dense",
    "set_relevance",
    "add_shared_item",
    "drop_shared_history",
    "own_list_relevance",
    "permute_users",
    "move_outcomes",
    "replicate",
]

import numpy as np
from puf.synthetic import permute_users, replicate  # noqa: F401  (re-exported for the cases)

# P@k moves by exactly 1/k when one list item changes relevance, so world-level
# disparity and transfer cases change effectiveness by a known, exact amount.
METRIC = "precision"
SIMILARITY = "jaccard"


def derive(world):
    """Return the Population a measure reads from ``world`` (P@k, Jaccard).

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2), np.eye(2), [[0], [0]], np.eye(2))
    >>> derive(w).effectiveness
    array([1., 0.])
    """
    return world.population(metric=METRIC, similarity=SIMILARITY)


def dense(matrix):
    """Return a dense float64 copy of a (possibly sparse) matrix.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> dense(sp.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return np.array(matrix.toarray() if hasattr(matrix, "toarray") else matrix, dtype=np.float64)


def set_relevance(world, user, item, grade):
    """Return ``world`` with r[user, item] = grade, everything else fixed.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2), np.zeros((2, 2)), [[0], [1]], np.eye(2))
    >>> dense(set_relevance(w, 0, 0, 2.0).relevance).tolist()
    [[2.0, 0.0], [0.0, 0.0]]
    """
    relevance = dense(world.relevance)
    relevance[user, item] = grade
    return world.replace(relevance=relevance)


def add_shared_item(world, u, v):
    """Add to both histories the first item not already in both; None if there is none.

    Jaccard(u, v) rises strictly (unless already 1): the intersection gains
    the item and the union gains it at most once.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.array([[1, 0], [0, 1]]), np.eye(2), [[0], [1]], np.eye(2))
    >>> dense(add_shared_item(w, 0, 1).histories).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    histories = dense(world.histories) > 0
    free = np.flatnonzero(~(histories[u] & histories[v]))
    if free.size == 0:
        return None
    histories[[u, v], free[0]] = True
    return world.replace(histories=histories.astype(np.float64))


def drop_shared_history(world):
    """Keep each history item only for its first holder: every Jaccard becomes 0.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.ones((2, 2)), np.eye(2), [[0], [1]], np.eye(2))
    >>> dense(drop_shared_history(w).histories).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    """
    histories = dense(world.histories) > 0
    first = np.cumsum(histories, axis=0) == 1
    return world.replace(histories=(histories & first).astype(np.float64))


def own_list_relevance(world):
    """Return ``world`` where each user's relevant items are exactly its own list (grade 1).

    Every user then has P@k = 1 and own utility 1, so nobody envies anyone.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2), np.zeros((2, 2)), [[1], [0]], np.eye(2))
    >>> dense(own_list_relevance(w).relevance).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    rankings = world.rankings
    relevance = np.zeros((world.m, world.n_items))
    rows = np.broadcast_to(np.arange(world.m)[:, None], rankings.shape)
    listed = rankings >= 0
    relevance[rows[listed], rankings[listed]] = 1.0
    return world.replace(relevance=relevance)


def move_outcomes(world, order):
    """Give user ``i`` the test relevance and list of user ``order[i]``; histories stay.

    Effectiveness is permuted over users while similarity is unchanged: the
    world-level form of re-pairing effectiveness with similarity.

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2), np.eye(2), [[0], [1]], np.eye(2))
    >>> moved = move_outcomes(w, [1, 0])
    >>> moved.rankings.tolist(), dense(moved.histories).tolist()
    ([[1], [0]], [[1.0, 0.0], [0.0, 1.0]])
    """
    order = np.asarray(order)
    return world.replace(relevance=dense(world.relevance)[order], rankings=world.rankings[order])
