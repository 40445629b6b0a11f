"""Relabel or replicate the users of a World or a Population (anonymity, population principle),
or reassign their outcomes (rearrangement).

A World relabels and replicates itself (:meth:`puf.World.permute`,
:meth:`puf.World.replicate`); these accept either data model.
"""

from __future__ import annotations

__all__ = ["permute_users", "replicate", "move_outcomes"]

from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike

from puf.population import Population
from puf.world import World
from puf.validation import check_permutation

from ._checks import check_count

D = TypeVar("D", World, Population)  # the data model relabelled: a World or a Population


def permute_users(data: D, order: ArrayLike) -> D:
    """Relabel users of a World or Population: new user i is old user ``order[i]``.

    Parameters
    ----------
    data : puf.World or puf.Population
    order : array-like of int, shape (m,)
        A permutation of range(m).

    Returns
    -------
    Same type as ``data``; every per-user field moves consistently
    (:meth:`puf.World.permute`, :meth:`puf.Population.permute`).

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(3), np.eye(3), [[0], [1], [2]], np.eye(3))
    >>> permute_users(w, [2, 0, 1]).rankings.ravel().tolist()
    [2, 0, 1]
    """
    return data.permute(order)


def replicate(data: D, r: int) -> D:
    """Stack ``r`` copies of the population (Dalton's population principle).

    Parameters
    ----------
    data : puf.World or puf.Population
    r : int >= 1

    Returns
    -------
    Same type as ``data``, with r m users; copy c of user u is user c m + u.

    Notes
    -----
    A World's copies share the items, so a user and its copy have identical histories
    (Jaccard 1). A Population's pair matrices are tiled: the pair (u, copy of u) gets
    u's diagonal entry, which is what the replicated World derives too.

    Examples
    --------
    >>> from puf import Population
    >>> p = replicate(Population([0.0, 1.0], [[1, .5], [.5, 1]]), 2)
    >>> p.effectiveness.tolist(), p.similarity[0].tolist()
    ([0.0, 1.0, 0.0, 1.0], [1.0, 0.5, 1.0, 0.5])
    """
    r = check_count(r, name="r", minimum=1)
    if isinstance(data, Population):
        tiled = {name: np.tile(value, (r, r)) for name, value in data.fields().items() if value.ndim == 2}
        return data.replace(effectiveness=np.tile(data.effectiveness, r), **tiled)
    return data.replicate(r)


def move_outcomes(world: World, order: ArrayLike) -> World:
    """Give user ``i`` the test relevance and list of user ``order[i]``; histories stay.

    Effectiveness is permuted over users while similarity is unchanged: the
    world-level form of re-pairing effectiveness with similarity.

    Parameters
    ----------
    world : puf.World
    order : array-like of int, shape (m,)
        A permutation of range(m).

    Returns
    -------
    puf.World

    Examples
    --------
    >>> import numpy as np
    >>> from puf import World
    >>> w = World(np.eye(2), np.eye(2), [[0], [1]], np.eye(2))
    >>> moved = move_outcomes(w, [1, 0])
    >>> moved.rankings.tolist(), moved.histories.toarray().tolist()
    ([[1], [0]], [[1.0, 0.0], [0.0, 1.0]])
    """
    order = check_permutation(order, world.m)
    return world.replace(relevance=world.relevance[order], rankings=world.rankings[order])
