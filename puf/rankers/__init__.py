"""Baseline rankers that turn training histories into top-k lists.

Every ranker has ``fit(train)`` and ``recommend(users=None, *, k=10)``
returning an (m, k) int64 array of distinct unseen items (``-1`` pads), and
is deterministic for a given ``random_state``. :data:`RANKERS` maps names to
classes; ALS and BPR need the optional ``implicit`` library.

>>> import numpy as np
>>> make_ranker("ease", l2=1.0).fit(np.array([[1, 1, 0], [1, 0, 0]])).recommend(k=1).tolist()
[[2], [1]]
"""

__all__ = [
    "ALS",
    "BPR",
    "EASE",
    "ItemKNN",
    "MostPop",
    "RANKERS",
    "Random",
    "Ranker",
    "UserKNN",
    "available_rankers",
    "implicit_available",
    "make_ranker",
    "single_threaded_blas",
]

from ._base import Ranker, single_threaded_blas
from .baselines import EASE, ItemKNN, MostPop, Random, UserKNN
from .factorization import ALS, BPR, implicit_available

RANKERS = {
    "random": Random,
    "mostpop": MostPop,
    "userknn": UserKNN,
    "itemknn": ItemKNN,
    "ease": EASE,
    "als": ALS,
    "bpr": BPR,
}

OPTIONAL = {"als", "bpr"}  # need the `implicit` extra


def available_rankers():
    """Names in :data:`RANKERS` whose dependencies are installed, in registry order.

    Examples
    --------
    >>> available_rankers()[:5]
    ['random', 'mostpop', 'userknn', 'itemknn', 'ease']
    """
    return [n for n in RANKERS if n not in OPTIONAL or implicit_available()]


def make_ranker(name, **params):
    """Instantiate the ranker registered as ``name`` with keyword ``params``.

    Parameters
    ----------
    name : str
        A key of :data:`RANKERS` (case-insensitive).
    **params
        Constructor keywords (e.g. ``random_state``, ``l2``, ``neighbors``).

    Returns
    -------
    Ranker

    Examples
    --------
    >>> make_ranker("ItemKNN", neighbors=20)
    ItemKNN(random_state=None, neighbors=20, shrink=0.0)
    >>> make_ranker("svd")
    Traceback (most recent call last):
    ...
    ValueError: unknown ranker 'svd'; known rankers: random, mostpop, userknn, itemknn, ease, als, bpr
    """
    key = str(name).lower()
    if key not in RANKERS:
        raise ValueError(f"unknown ranker {name!r}; known rankers: {', '.join(RANKERS)}")
    return RANKERS[key](**params)
