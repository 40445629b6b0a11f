"""Baseline rankers that turn training histories into top-k lists.

Every ranker has ``fit(train)`` and ``recommend(users=None, *, k=10)``
returning an (m, k) int64 array of distinct unseen items (``-1`` pads), and
is deterministic for a given ``random_state``. :data:`RANKERS` maps names to
classes; ALS and BPR need the optional ``implicit`` library, NMF needs
scikit-learn, and MultVAE, NGCF and NCL (:mod:`puf.rankers.neural`) need
torch (extra ``neural``). :data:`PAPER_RANKERS` are the PUF paper's seven.

>>> import numpy as np
>>> make_ranker("ease", l2=1.0).fit(np.array([[1, 1, 0], [1, 0, 0]])).recommend(k=1).tolist()
[[2], [1]]
"""

from __future__ import annotations

__all__ = [
    "ALS",
    "BPR",
    "EASE",
    "ItemKNN",
    "MostPop",
    "MultVAE",
    "NCL",
    "NGCF",
    "NMF",
    "PAPER_RANKERS",
    "RANKERS",
    "Random",
    "Ranker",
    "UserKNN",
    "available_rankers",
    "implicit_available",
    "make_ranker",
    "missing_requirement",
    "single_threaded_blas",
    "top_k_items",
]

import inspect
from typing import Any

from ._base import Ranker, single_threaded_blas, top_k_items
from .baselines import EASE, ItemKNN, MostPop, Random, UserKNN
from .factorization import ALS, BPR, implicit_available
from .neural import NCL, NGCF, MultVAE, torch_available
from .nmf import NMF, sklearn_available

#: The rankers by lower-case name: classes that fit histories and return top-k lists.
RANKERS = {
    "random": Random,
    "mostpop": MostPop,
    "userknn": UserKNN,
    "itemknn": ItemKNN,
    "ease": EASE,
    "als": ALS,
    "bpr": BPR,
    "nmf": NMF,
    "multvae": MultVAE,
    "ngcf": NGCF,
    "ncl": NCL,
}

PAPER_RANKERS = ("userknn", "itemknn", "bpr", "nmf", "multvae", "ngcf", "ncl")
"""The seven rankers of the PUF paper's real-data study, in its order."""

_REQUIRES = {  # optional ranker -> (library, is it importable, how to install it)
    "als": ("implicit", implicit_available, "pip install 'puf-harness[rankers]'"),
    "bpr": ("implicit", implicit_available, "pip install 'puf-harness[rankers]'"),
    "nmf": ("scikit-learn", sklearn_available, "pip install 'puf-harness[neural]'"),
    "multvae": ("torch", torch_available, "pip install torch==2.13.0 'puf-harness[neural]'"),
    "ngcf": ("torch", torch_available, "pip install torch==2.13.0 'puf-harness[neural]'"),
    "ncl": ("torch", torch_available, "pip install torch==2.13.0 'puf-harness[neural]'"),
}


def missing_requirement(name: str) -> str | None:
    """Return a one-line message if ranker ``name`` needs an uninstalled library, else None.

    Examples
    --------
    >>> missing_requirement("ease") is None
    True
    """
    key = str(name).lower()
    if key not in _REQUIRES or _REQUIRES[key][1]():
        return None
    library, _, command = _REQUIRES[key]
    return f"{key} needs the optional library {library}: {command}"


def available_rankers() -> list[str]:
    """Names in :data:`RANKERS` whose dependencies are installed, in registry order.

    Examples
    --------
    >>> available_rankers()[:5]
    ['random', 'mostpop', 'userknn', 'itemknn', 'ease']
    """
    return [n for n in RANKERS if missing_requirement(n) is None]


def make_ranker(name: str, **params: Any) -> Ranker:
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
    >>> make_ranker("ease", lambda_=3.0)
    Traceback (most recent call last):
    ...
    ValueError: ease takes no parameter 'lambda_'; it takes l2, random_state
    >>> make_ranker("svd")
    Traceback (most recent call last):
    ...
    ValueError: unknown ranker 'svd'; known rankers: random, mostpop, userknn, itemknn, ease, als, bpr, nmf, multvae, ngcf, ncl
    """
    key = str(name).lower()
    if key not in RANKERS:
        raise ValueError(f"unknown ranker {name!r}; known rankers: {', '.join(RANKERS)}")
    takes = list(inspect.signature(RANKERS[key]).parameters)
    unknown = [p for p in params if p not in takes]
    if unknown:
        raise ValueError(f"{key} takes no parameter {unknown[0]!r}; it takes {', '.join(takes)}")
    return RANKERS[key](**params)
